# CMake generated Testfile for 
# Source directory: /work/wt-ship/examples/c
# Build directory: /work/wt-ship/build-static/examples/c
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
add_test([=[example.quickstart]=] "/work/wt-ship/build-static/examples/c/quickstart")
set_tests_properties([=[example.quickstart]=] PROPERTIES  PASS_REGULAR_EXPRESSION "1968  A Wizard of Earthsea \\(Ursula K. Le Guin\\)
1971  The Lathe of Heaven \\(Ursula K. Le Guin\\)
\$" _BACKTRACE_TRIPLES "/work/wt-ship/examples/c/CMakeLists.txt;10;add_test;/work/wt-ship/examples/c/CMakeLists.txt;0;")
add_test([=[example.migration]=] "/work/wt-ship/build-static/examples/c/migration")
set_tests_properties([=[example.migration]=] PROPERTIES  PASS_REGULAR_EXPRESSION "^IEM_Transform_Book
progress reached 1.00
DUNE 412
MORT 243
Dune 412
Mort 243
\$" _BACKTRACE_TRIPLES "/work/wt-ship/examples/c/CMakeLists.txt;22;add_test;/work/wt-ship/examples/c/CMakeLists.txt;0;")
add_test([=[example.quickstart.valgrind]=] "/usr/bin/valgrind" "--leak-check=full" "--errors-for-leak-kinds=definite" "--error-exitcode=99" "/work/wt-ship/build-static/examples/c/quickstart")
set_tests_properties([=[example.quickstart.valgrind]=] PROPERTIES  TIMEOUT "600" _BACKTRACE_TRIPLES "/work/wt-ship/examples/c/CMakeLists.txt;30;add_test;/work/wt-ship/examples/c/CMakeLists.txt;0;")
