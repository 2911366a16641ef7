file(REMOVE_RECURSE
  "CMakeFiles/test_objects.dir/test_objects.c.o"
  "CMakeFiles/test_objects.dir/test_objects.c.o.d"
  "test_objects"
  "test_objects.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_objects.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
