file(REMOVE_RECURSE
  "CMakeFiles/test_values.dir/test_values.c.o"
  "CMakeFiles/test_values.dir/test_values.c.o.d"
  "test_values"
  "test_values.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_values.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
