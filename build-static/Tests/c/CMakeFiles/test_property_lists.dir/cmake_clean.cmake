file(REMOVE_RECURSE
  "CMakeFiles/test_property_lists.dir/test_property_lists.c.o"
  "CMakeFiles/test_property_lists.dir/test_property_lists.c.o.d"
  "test_property_lists"
  "test_property_lists.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_property_lists.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
