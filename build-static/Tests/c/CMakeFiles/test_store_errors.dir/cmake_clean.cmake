file(REMOVE_RECURSE
  "CMakeFiles/test_store_errors.dir/test_store_errors.c.o"
  "CMakeFiles/test_store_errors.dir/test_store_errors.c.o.d"
  "test_store_errors"
  "test_store_errors.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_store_errors.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
