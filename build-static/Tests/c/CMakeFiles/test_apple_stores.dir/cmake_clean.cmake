file(REMOVE_RECURSE
  "CMakeFiles/test_apple_stores.dir/test_apple_stores.c.o"
  "CMakeFiles/test_apple_stores.dir/test_apple_stores.c.o.d"
  "test_apple_stores"
  "test_apple_stores.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_apple_stores.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
