# CMake generated Testfile for 
# Source directory: /work/wt-ship
# Build directory: /work/wt-ship/build-static
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
subdirs("examples/c")
subdirs("Tests/c")
subdirs("Tests/robustness")
