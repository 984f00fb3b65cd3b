#!/usr/bin/env python3
"""The layer check: every #include in src/ and tools/ obeys docs/design.md section 3.

Usage: check_layers.py ROOT MANIFEST

ROOT is the source tree; MANIFEST is the build's plaidml_modules.txt (one line per module: its
folder, then the folders of the modules its CMake target lists). Three rules, each reported as
`file:line: includes X: why`:
  1. the layer table below: which modules and outside libraries a module's files may include;
  2. a module includes only modules its CMake target lists (so the build's list is the truth);
  3. a module's list itself obeys the table.
The build already refuses most violations (a module sees only the headers of modules it lists);
this names the rule, and catches what a PUBLIC dependency would otherwise let through.
"""
import os
import re
import sys

CORE_LOW = ["src/core/base", "src/core/types", "src/core/poly", "src/core/ir"]
CORE = CORE_LOW + ["src/core/parse", "src/core/eval", "src/core/oplib", "src/core/autodiff"]
LOWERED = CORE + ["src/jit/loop", "src/jit/lower"]
PLUGIN_H = "include/plaidml/plugin.h"
PLAIDML_H = "include/plaidml/plaidml.h"
ONNX_H = "include/plaidml/onnx.h"

# folder -> (modules its files may include, outside libraries they may include). A module may
# always include its own headers. Folders are matched exactly.
LAYERS = {
    "src/core/base": ([], ["fmt", "spdlog"]),
    "src/core/types": (["src/core/base"], ["fmt"]),
    "src/core/poly": (["src/core/base", "src/core/types"], ["fmt", "isl"]),
    "src/core/ir": (["src/core/base", "src/core/types", "src/core/poly"], ["fmt"]),
    "src/core/parse": (CORE_LOW, ["fmt"]),
    "src/core/eval": (CORE_LOW, ["fmt"]),
    "src/core/oplib": (CORE_LOW, ["fmt"]),
    "src/core/autodiff": (CORE_LOW, ["fmt"]),
    "src/jit/loop": (CORE, ["fmt"]),
    "src/jit/lower": (CORE + ["src/jit/loop"], ["fmt"]),
    "src/jit/passes": (LOWERED, ["fmt"]),
    "src/jit/codegen": (["src/core/base"], ["fmt"]),
    "src/jit/codegen/gpu": (LOWERED, ["fmt"]),
    "src/jit/codegen/llvm": (LOWERED + ["src/jit/codegen"], ["fmt", "llvm"]),
    "src/jit/codegen/opencl": (LOWERED + ["src/jit/codegen", "src/jit/codegen/gpu"], ["fmt"]),
    "src/jit/codegen/spirv": (LOWERED + ["src/jit/codegen", "src/jit/codegen/gpu"],
                              ["fmt", "spirv"]),
    "src/jit/cache": (LOWERED + ["src/jit/codegen"], ["fmt"]),
    "src/jit": (LOWERED + ["src/jit/passes", "src/jit/codegen", "src/jit/codegen/gpu",
                           "src/jit/codegen/llvm", "src/jit/codegen/opencl",
                           "src/jit/codegen/spirv", "src/jit/cache", "src/devices", PLUGIN_H],
                ["fmt"]),
    "src/devices/cpu": (["src/core/base", PLUGIN_H], ["fmt", "llvm"]),
    "src/devices": (["src/core/base", PLUGIN_H], ["fmt"]),
    "src/devices/plugin_support": ([PLUGIN_H], []),
    "src/devices/null": (["src/devices/plugin_support", PLUGIN_H], []),
    "src/devices/opencl": (["src/devices/plugin_support", "src/core/base", PLUGIN_H], ["opencl"]),
    "src/devices/vulkan": (["src/devices/plugin_support", "src/core/base", PLUGIN_H], ["vulkan"]),
    "src/capi": (CORE + ["src/jit", PLAIDML_H], ["fmt"]),
    # The importer is built on the public C ABI only (plaidml.h and its C++ wrapper).
    "src/frontend/onnx": ([PLAIDML_H, "include/plaidml/plaidml.hpp", "include/plaidml/onnx.h"],
                          ["fmt", "onnx", "protobuf"]),
    # The tool is a user of the public C ABIs: libplaidml's and libplaidml_onnx's.
    "tools": ([PLAIDML_H, ONNX_H, "tools/commands"], []),
    "tools/commands": ([PLAIDML_H, ONNX_H, "tools"], []),
}
# Single files allowed more than their folder: the registry is the one place that names the
# built-in devices; only logging.cc includes spdlog (it costs ~10 s of compile per file).
FILE_EXTRAS = {"src/devices/registry.cc": ["src/devices/cpu"]}
FILE_ONLY_LIBS = {"spdlog": ["src/core/base/logging.cc"]}

# <prefix/...> -> the outside library it belongs to.
LIBRARIES = {"fmt": "fmt", "spdlog": "spdlog", "llvm": "llvm", "llvm-c": "llvm", "isl": "isl",
             "CL": "opencl", "vulkan": "vulkan", "spirv": "spirv", "spirv-tools": "spirv",
             "onnx": "onnx", "google": "protobuf"}

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def short(folder):
    return folder[4:] if folder.startswith("src/") else folder


def resolve(root, folder, target):
    """The module folder (or public header) an include names, or None for other headers."""
    if target.startswith("plaidml/") and os.path.exists(os.path.join(root, "include", target)):
        return "include/" + target
    if os.path.exists(os.path.join(root, "src", target)):
        return "src/" + os.path.dirname(target)
    if os.path.exists(os.path.join(root, folder, target)):
        return folder  # a header next to the file
    if folder.startswith("tools") and os.path.exists(os.path.join(root, "tools", target)):
        return os.path.dirname(os.path.join("tools", target))
    return None


def check_file(root, path, folder, listed, errors):
    allowed, libs = LAYERS[folder]
    allowed = set(allowed) | set(FILE_EXTRAS.get(path, [])) | {folder}
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = m.group(2)
            close = ">" if m.group(1) == "<" else '"'
            where = f"{path}:{number}: includes {m.group(1)}{target}{close}"
            module = resolve(root, folder, target)
            if module is not None:
                if module not in allowed:
                    names = ", ".join(short(a) for a in sorted(allowed - {folder})) or "nothing"
                    errors.append(f"{where}: {short(folder)} may include only its own headers "
                                  f"and {names} (docs/design.md section 3)")
                elif (listed is not None and module != folder and module.startswith("src/")
                      and module not in listed):
                    errors.append(f"{where}: {short(module)} is not among the modules that "
                                  f"{short(folder)}'s CMake target lists; list it there")
                continue
            library = LIBRARIES.get(target.split("/")[0]) if "/" in target else None
            if library is None:
                continue
            only = FILE_ONLY_LIBS.get(library)
            if library not in libs or (only is not None and path not in only):
                users = only or [short(f) for f, (_, l) in LAYERS.items() if library in l]
                errors.append(f"{where}: the {library} headers belong to {', '.join(users)} "
                              f"only (docs/design.md section 3)")


def read_manifest(path):
    listed = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if parts:
                listed.setdefault(parts[0], set()).update(parts[1:])
    return listed


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    root, manifest = sys.argv[1], sys.argv[2]
    listed = read_manifest(manifest)
    errors = []
    for folder, deps in sorted(listed.items()):
        if folder not in LAYERS:
            errors.append(f"{folder}: a module the layer table does not know; add it to "
                          f"tests/layers/check_layers.py and docs/design.md section 3")
            continue
        # A file's extra allowance (the registry naming the CPU device) is its module's too.
        extras = {e for f, es in FILE_EXTRAS.items() if os.path.dirname(f) == folder for e in es}
        for dep in sorted(deps):
            if dep not in LAYERS[folder][0] and dep not in extras and dep != folder:
                errors.append(f"{folder}: its CMake target lists {short(dep)}, which the layer "
                              f"table does not allow (docs/design.md section 3)")
    files = 0
    for top in ("src", "tools"):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            folder = os.path.relpath(dirpath, root)
            for name in sorted(names):
                if not name.endswith((".cc", ".h", ".c")):
                    continue
                path = os.path.join(folder, name)
                if folder not in LAYERS:
                    errors.append(f"{path}: in {folder}, which the layer table does not know")
                    continue
                files += 1
                check_file(root, path, folder, listed.get(folder), errors)
    for e in errors:
        print(e)
    if errors:
        print(f"{len(errors)} layer violation(s)")
        return 1
    print(f"ok: {files} files in {len(listed)} modules obey the layer table")
    return 0


if __name__ == "__main__":
    sys.exit(main())
