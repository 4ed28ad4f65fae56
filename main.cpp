// perftriage: a thin entry point; the commands live in server/cli/ (`perftriage help` lists them).
#include <iostream>

#include "server/cli/cli.hpp"

int main(int argc, char** argv) {
  return perftriage::cli::run_cli(perftriage::cli::Args(argv + 1, argv + argc), std::cout, std::cerr);
}
