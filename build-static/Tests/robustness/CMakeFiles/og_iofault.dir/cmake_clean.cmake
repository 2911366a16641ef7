file(REMOVE_RECURSE
  "CMakeFiles/og_iofault.dir/iofault.c.o"
  "CMakeFiles/og_iofault.dir/iofault.c.o.d"
  "libog_iofault.pdb"
  "libog_iofault.so"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/og_iofault.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
