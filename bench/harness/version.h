// The project's version and the git revision a binary was built from, for `--version` and
// meta.json: a bug report names both.
#pragma once

namespace wb {

// The project version (CMake's PROJECT_VERSION, e.g. "0.2.0").
const char* project_version();
// `git describe --always --dirty` of the source tree at build time ("a460aa4c1234-dirty" when
// it had uncommitted changes).
const char* project_revision();

// When argv holds --version: prints "PROGRAM (wirebench) VERSION, revision REVISION" (PROGRAM:
// the name it was started as) and returns true. Called first in every main(), before MPI starts,
// so it answers without a launcher.
bool answer_version(int argc, char** argv);

}  // namespace wb
