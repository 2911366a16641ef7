file(REMOVE_RECURSE
  "CMakeFiles/test_relationships.dir/test_relationships.c.o"
  "CMakeFiles/test_relationships.dir/test_relationships.c.o.d"
  "test_relationships"
  "test_relationships.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_relationships.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
