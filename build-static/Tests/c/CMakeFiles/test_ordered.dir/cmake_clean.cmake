file(REMOVE_RECURSE
  "CMakeFiles/test_ordered.dir/test_ordered.c.o"
  "CMakeFiles/test_ordered.dir/test_ordered.c.o.d"
  "test_ordered"
  "test_ordered.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_ordered.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
