// NNREMOTE_FLAG(Type, identifier, "spelled-name", default, help) defines an absl flag whose
// command-line name is "spelled-name"; read it with absl::GetFlag(FLAGS_identifier) and declare
// it elsewhere with ABSL_DECLARE_FLAG(Type, identifier).
//
// Why not ABSL_FLAG: absl names a flag after its C++ identifier, so it cannot spell the
// hyphenated names our command lines have always had (--deadline-us, --server-config). This is
// ABSL_FLAG's own expansion (absl/flags/flag.h of Debian's 20220623) with the name given
// separately; everything else (registration, typed parsing, --flagfile, --helpfull) is absl's.
#ifndef NNREMOTE_FLAGS_NAMED_FLAG_H_
#define NNREMOTE_FLAGS_NAMED_FLAG_H_

#include "absl/flags/flag.h"

// Use at global scope, like ABSL_FLAG. `.OnUpdate(callback)` may follow, as after ABSL_FLAG.
#define NNREMOTE_FLAG(Type, name, spelled, default_value, help)                \
  extern ::absl::Flag<Type> FLAGS_##name;                                      \
  ABSL_FLAG_IMPL_DECLARE_DEF_VAL_WRAPPER(name, Type, default_value)            \
  ABSL_FLAG_IMPL_DECLARE_HELP_WRAPPER(name, help)                              \
  ABSL_CONST_INIT absl::Flag<Type> FLAGS_##name{                               \
      ABSL_FLAG_IMPL_FLAGNAME(spelled), ABSL_FLAG_IMPL_FILENAME(),             \
      ABSL_FLAG_IMPL_HELP_ARG(name), ABSL_FLAG_IMPL_DEFAULT_ARG(Type, name)};  \
  extern absl::flags_internal::FlagRegistrarEmpty FLAGS_no##name;              \
  absl::flags_internal::FlagRegistrarEmpty FLAGS_no##name =                    \
      ABSL_FLAG_IMPL_REGISTRAR(Type, FLAGS_##name)

#endif  // NNREMOTE_FLAGS_NAMED_FLAG_H_
