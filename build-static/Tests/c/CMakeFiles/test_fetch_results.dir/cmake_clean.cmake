file(REMOVE_RECURSE
  "CMakeFiles/test_fetch_results.dir/test_fetch_results.c.o"
  "CMakeFiles/test_fetch_results.dir/test_fetch_results.c.o.d"
  "test_fetch_results"
  "test_fetch_results.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_fetch_results.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
