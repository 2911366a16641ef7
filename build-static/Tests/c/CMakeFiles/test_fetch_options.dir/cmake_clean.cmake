file(REMOVE_RECURSE
  "CMakeFiles/test_fetch_options.dir/test_fetch_options.c.o"
  "CMakeFiles/test_fetch_options.dir/test_fetch_options.c.o.d"
  "test_fetch_options"
  "test_fetch_options.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_fetch_options.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
