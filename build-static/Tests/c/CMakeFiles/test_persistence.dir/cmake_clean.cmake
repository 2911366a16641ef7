file(REMOVE_RECURSE
  "CMakeFiles/test_persistence.dir/test_persistence.c.o"
  "CMakeFiles/test_persistence.dir/test_persistence.c.o.d"
  "test_persistence"
  "test_persistence.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_persistence.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
