file(REMOVE_RECURSE
  "CMakeFiles/test_stores.dir/test_stores.c.o"
  "CMakeFiles/test_stores.dir/test_stores.c.o.d"
  "test_stores"
  "test_stores.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_stores.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
