# Writes OUT: a header defining `inline constexpr std::string_view NAME` (in namespace perftriage) with the bytes
# of IN as a raw string literal. Used for server/routes/openapi.json (GET /api/v1/openapi.json) so the binary needs no
# files beside it.
file(READ ${IN} _text)
string(FIND "${_text}" ")perftriage_embed\"" _clash)
if(NOT _clash EQUAL -1)
  message(FATAL_ERROR "${IN} contains the raw-string delimiter )perftriage_embed\"")
endif()
set(_head "#pragma once\n// Generated from ${IN} by cmake/EmbedText.cmake. Do not edit.\n#include <string_view>\n")
# A long literal (openapi.json: ~160 KB): both compilers take it; clang's -Woverlength-strings (the standard's 65,536 minimum) would
# flag it in every build of this header, so it is off here and only here (as for the embedded label models).
string(APPEND _head "#if defined(__clang__)\n#pragma clang diagnostic push\n#pragma clang diagnostic ignored \"-Woverlength-strings\"\n#endif\n")
string(APPEND _head "namespace perftriage {\ninline constexpr std::string_view ${NAME} = R\"perftriage_embed(")
set(_tail ")perftriage_embed\";\n}  // namespace perftriage\n#if defined(__clang__)\n#pragma clang diagnostic pop\n#endif\n")
file(WRITE ${OUT}.tmp "${_head}${_text}${_tail}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
