file(REMOVE_RECURSE
  "CMakeFiles/abi_fuzz.dir/__/__/Fuzz/abi/abi_fuzz.c.o"
  "CMakeFiles/abi_fuzz.dir/__/__/Fuzz/abi/abi_fuzz.c.o.d"
  "abi_calls.h"
  "abi_fuzz"
  "abi_fuzz.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/abi_fuzz.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
