file(REMOVE_RECURSE
  "CMakeFiles/test_contexts.dir/test_contexts.c.o"
  "CMakeFiles/test_contexts.dir/test_contexts.c.o.d"
  "test_contexts"
  "test_contexts.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_contexts.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
