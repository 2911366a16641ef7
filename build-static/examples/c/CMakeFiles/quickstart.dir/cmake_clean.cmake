file(REMOVE_RECURSE
  "CMakeFiles/quickstart.dir/quickstart.c.o"
  "CMakeFiles/quickstart.dir/quickstart.c.o.d"
  "quickstart"
  "quickstart.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/quickstart.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
