file(REMOVE_RECURSE
  "CMakeFiles/test_thread.dir/test_thread.c.o"
  "CMakeFiles/test_thread.dir/test_thread.c.o.d"
  "test_thread"
  "test_thread.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_thread.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
