# Embeds analyzers/taxonomies/*.json (and the label models in models/*.json) into a generated header so the binary and the tests need no files beside them.
# Two modes: include()d by analyzers/CMakeLists.txt (wires the generation into perftriage_analyzers_labeler), and
# `cmake -DDIR=... -DOUT=... -P labeler.cmake` (the generation step itself, re-run when a taxonomy changes).
if(CMAKE_SCRIPT_MODE_FILE)
  # Appends `inline constexpr std::array<EmbeddedTaxonomy, N> NAME{{ {"file-stem"sv, R"delim(json)delim"sv}, ... }};`.
  function(_pt_embed_array name glob delim)
    file(GLOB _files ${glob})
    list(SORT _files)
    list(LENGTH _files _n)
    set(_out "inline constexpr std::array<EmbeddedTaxonomy, ${_n}> ${name}{{\n")
    foreach(f ${_files})
      get_filename_component(_stem ${f} NAME_WE)
      file(READ ${f} _json)
      string(APPEND _out "  {\"${_stem}\"sv, R\"${delim}(${_json})${delim}\"sv},\n")
    endforeach()
    string(APPEND _out "}};\n")
    set(_body "${_body}${_out}" PARENT_SCOPE)
  endfunction()
  set(_body "#pragma once\n// Generated from analyzers/taxonomies/*.json by analyzers/labeler/labeler.cmake. Do not edit.\n")
  string(APPEND _body "#include <array>\n#include <string_view>\nnamespace perftriage::analyzers::labeler::embedded {\n")
  string(APPEND _body "struct EmbeddedTaxonomy { std::string_view name; std::string_view json; };\n")
  # `sv` literals carry their length: a string_view made from a plain literal counts its characters in a constexpr
  # loop, and GCC stops such a loop at 262,144 iterations (a model of 268 KB did not compile).
  string(APPEND _body "using namespace std::string_view_literals;\n")
  # A model file is one literal of ~270 KB: both compilers take it; clang's -Woverlength-strings (the standard's
  # 65,536 minimum) would flag it in every build of this header, so it is off here and only here.
  string(APPEND _body "#if defined(__clang__)\n#pragma clang diagnostic push\n#pragma clang diagnostic ignored \"-Woverlength-strings\"\n#endif\n")
  _pt_embed_array(kTaxonomies "${DIR}/*.json" pt_taxonomy)
  # The learned label models (analyzers/taxonomies/models/<taxonomy>.json, written by `perftriage tracker train`).
  _pt_embed_array(kModels "${DIR}/models/*.json" pt_model)
  string(APPEND _body "#if defined(__clang__)\n#pragma clang diagnostic pop\n#endif\n")
  string(APPEND _body "}  // namespace perftriage::analyzers::labeler::embedded\n")
  file(WRITE ${OUT}.tmp "${_body}")
  file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
  return()
endif()

set(_pt_tax_dir ${CMAKE_CURRENT_LIST_DIR}/../taxonomies)
file(GLOB _pt_tax_files CONFIGURE_DEPENDS ${_pt_tax_dir}/*.json ${_pt_tax_dir}/models/*.json)
set(_pt_tax_gen_dir ${CMAKE_CURRENT_BINARY_DIR}/labeler_generated)
set(_pt_tax_header ${_pt_tax_gen_dir}/perftriage_embedded_taxonomies.hpp)
add_custom_command(
  OUTPUT ${_pt_tax_header}
  COMMAND ${CMAKE_COMMAND} -DDIR=${_pt_tax_dir} -DOUT=${_pt_tax_header} -P ${CMAKE_CURRENT_LIST_DIR}/labeler.cmake
  DEPENDS ${_pt_tax_files} ${CMAKE_CURRENT_LIST_DIR}/labeler.cmake
  COMMENT "Embedding labeler taxonomies"
  VERBATIM)
target_sources(perftriage_analyzers_labeler PRIVATE ${_pt_tax_header})
target_include_directories(perftriage_analyzers_labeler PRIVATE ${_pt_tax_gen_dir})
