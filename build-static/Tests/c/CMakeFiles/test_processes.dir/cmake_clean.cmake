file(REMOVE_RECURSE
  "CMakeFiles/test_processes.dir/test_processes.c.o"
  "CMakeFiles/test_processes.dir/test_processes.c.o.d"
  "test_processes"
  "test_processes.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_processes.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
