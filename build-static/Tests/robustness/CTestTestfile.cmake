# CMake generated Testfile for 
# Source directory: /work/wt-ship/Tests/robustness
# Build directory: /work/wt-ship/build-static/Tests/robustness
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
add_test([=[robust.abi_fuzz_short]=] "/work/wt-ship/build-static/Tests/robustness/abi_fuzz" "--seconds" "15" "--findings" "/work/wt-ship/build-static/Tests/robustness/runs/abi-findings")
set_tests_properties([=[robust.abi_fuzz_short]=] PROPERTIES  TIMEOUT "180" _BACKTRACE_TRIPLES "/work/wt-ship/Tests/robustness/CMakeLists.txt;37;add_test;/work/wt-ship/Tests/robustness/CMakeLists.txt;0;")
add_test([=[robust.crash_kills_short]=] "/work/wt-ship/build-static/Tests/robustness/og_crash" "kills" "--type" "both" "--kills" "40" "--dir" "/work/wt-ship/build-static/Tests/robustness/runs/kills")
set_tests_properties([=[robust.crash_kills_short]=] PROPERTIES  TIMEOUT "180" _BACKTRACE_TRIPLES "/work/wt-ship/Tests/robustness/CMakeLists.txt;38;add_test;/work/wt-ship/Tests/robustness/CMakeLists.txt;0;")
add_test([=[robust.io_faults_short]=] "/work/wt-ship/build-static/Tests/robustness/og_crash" "faults" "--type" "both" "--runs" "40" "--dir" "/work/wt-ship/build-static/Tests/robustness/runs/faults" "--shim" "/work/wt-ship/build-static/Tests/robustness/libog_iofault.so")
set_tests_properties([=[robust.io_faults_short]=] PROPERTIES  TIMEOUT "180" _BACKTRACE_TRIPLES "/work/wt-ship/Tests/robustness/CMakeLists.txt;39;add_test;/work/wt-ship/Tests/robustness/CMakeLists.txt;0;")
