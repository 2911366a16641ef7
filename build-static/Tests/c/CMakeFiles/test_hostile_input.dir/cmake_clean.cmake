file(REMOVE_RECURSE
  "CMakeFiles/test_hostile_input.dir/test_hostile_input.c.o"
  "CMakeFiles/test_hostile_input.dir/test_hostile_input.c.o.d"
  "test_hostile_input"
  "test_hostile_input.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_hostile_input.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
