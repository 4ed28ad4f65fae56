# Layers the build enforces. Sources say `#include "schema/store.hpp"`, but no target has the repository root on its
# include path: each layer's target publishes layers/<layer>/, a folder that holds one committed link,
# <layer> -> ../../<layer>. A target therefore sees exactly the layers it links (and what those link publicly), so
# an include that runs up the stack (schema -> analyzers, ingest -> schema) does not compile. tools/check_layers.py
# checks the same rule, with the server's folders, as the CTest entry `layers`. (The links are committed rather
# than made in the build folder so that every build folder compiles with the same -I paths and shares ccache.)
function(perftriage_layer_includes target layer)
  set(_root ${PROJECT_SOURCE_DIR}/layers/${layer})
  if(NOT EXISTS ${_root}/${layer}/CMakeLists.txt)
    message(FATAL_ERROR "layers/${layer}/${layer} should be a link to ../../${layer} (git clone keeps it)")
  endif()
  get_target_property(_type ${target} TYPE)
  if(_type STREQUAL "INTERFACE_LIBRARY")
    target_include_directories(${target} INTERFACE ${_root})
  else()
    target_include_directories(${target} PUBLIC ${_root})
  endif()
endfunction()
