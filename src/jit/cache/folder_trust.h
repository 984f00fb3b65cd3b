// Whether a cache folder may be trusted (docs/kernel-cache.md, "What the cache trusts").
//
// The disk cache holds native code this process runs, and a checksum only catches damage: an
// entry someone else wrote is run as is. So the folder, and every folder above it, must be one
// that no other user can change. The rule, for each existing folder from the cache folder up
// to /, after resolving symbolic links (realpath: a symlink the user made, such as ~/.cache
// pointing at another disk, is normal; what counts is where it leads):
//   - it belongs to the user (the effective uid) or to root;
//   - nobody else can write it: not writable by others, nor by its group, unless
//       the group is the user's private group (named as the user, no other members: the
//         user-private-group scheme, where umask 002 makes folders group-writable), or
//       the folder is root's and sticky (like /tmp: others may add names, but not remove or
//         rename ours).
// ACLs are not read. Folders that do not exist yet are created by the cache, mode 0700.
// Once a folder has passed, the cache uses its resolved path: a symlink changed later cannot
// redirect this process.
#pragma once

#include <string>

namespace plaidml::jit {

struct FolderTrust {
  enum class Verdict {
    kTrusted,  // the folder exists and passes the rule
    kAbsent,   // the folder does not exist (or is not a folder); the folders above it pass
    kRefused,  // a folder on the way fails the rule
  };
  Verdict verdict = Verdict::kAbsent;
  std::string resolved;  // kTrusted: the folder with every symbolic link resolved
  std::string folder;    // kRefused: the folder that fails (resolved)
  std::string reason;    // kRefused: why, after the folder's name ("is writable by others ...")
};

// Checks dir (absolute) and the folders above it. Reads only; never creates anything.
FolderTrust check_folder_trust(const std::string& dir);

// Creates dir (absolute) and its missing parents, each mkdir'ed with mode 0700 (the umask can
// only narrow that). Returns 0, or the errno value of the first folder that could not be made
// (ENOTDIR when dir or a parent exists and is not a folder).
int create_private_folders(const std::string& dir);

// check_folder_trust, and when create and dir is absent while what exists passes: creates it
// (create_private_folders) and checks again, so that nothing is made below a refused folder.
// A creation failure leaves its errno value in *create_error and the verdict kAbsent.
FolderTrust prepare_folder(const std::string& dir, bool create, int* create_error);

// Logs the refusal of cache_dir as a warning, once per refused folder and process (the kernel,
// plan and program caches of every context share the folders above them); later ones at debug
// level. who names the cache ("kernel cache").
void warn_untrusted_folder(const char* who, const std::string& cache_dir,
                           const FolderTrust& trust);

}  // namespace plaidml::jit
