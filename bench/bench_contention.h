// How busy the machine was with other work while something was measured: the CPU time of every
// process (/proc/stat) minus this process's own (getrusage), over the wall time, in cores. On a
// shared 2-core machine this tells an honest number from one taken while others compiled.
#pragma once

namespace plaidml_bench {

class ContentionMeter {
 public:
  ContentionMeter();  // starts measuring
  // Average cores used by other processes since construction (0 .. core count); -1 where
  // /proc/stat cannot be read (not Linux) or less than kMinSeconds passed: the kernel counts CPU
  // time in ticks of 10 ms, too coarse for shorter spans.
  double others_cores() const;
  // Average cores this process used since construction (its threads, spinning ones included):
  // how many threads an implementation really kept busy. -1 under kMinSeconds.
  double self_cores() const;

  static constexpr double kMinSeconds = 0.25;

 private:
  double start_wall_ = 0;
  double start_busy_ = -1;  // seconds of CPU time, all processes
  double start_self_ = 0;   // seconds of CPU time, this process (all its threads)
};

}  // namespace plaidml_bench
