// main() of every harness test binary (library syncfab_tb_main).
#include "syncfab/tb/runner.hpp"

int main(int argc, char** argv) { return syncfab::tb::run_tests(argc, argv); }
