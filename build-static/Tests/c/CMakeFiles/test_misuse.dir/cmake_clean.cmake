file(REMOVE_RECURSE
  "CMakeFiles/test_misuse.dir/test_misuse.c.o"
  "CMakeFiles/test_misuse.dir/test_misuse.c.o.d"
  "test_misuse"
  "test_misuse.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_misuse.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
