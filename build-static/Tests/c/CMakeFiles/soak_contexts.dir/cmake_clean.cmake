file(REMOVE_RECURSE
  "CMakeFiles/soak_contexts.dir/soak_contexts.c.o"
  "CMakeFiles/soak_contexts.dir/soak_contexts.c.o.d"
  "soak_contexts"
  "soak_contexts.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/soak_contexts.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
