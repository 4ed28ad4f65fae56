# CTest label_model_<taxonomy>: retrain the built-in model from the committed real issues, their older part
# (tests/fixtures/labeler/real/split.json: the newer part is frozen for label_eval_frozen), with the same command,
# threshold and relative paths that made it, and compare with analyzers/taxonomies/models/<taxonomy>.json byte for byte.
# Run from the source root: -DPERFTRIAGE=binary -DTAXONOMY=name -DOUT=scratch file.
execute_process(
  COMMAND ${PERFTRIAGE} tracker train --from tests/fixtures/labeler/real/history/${TAXONOMY}.jsonl
          --from tests/fixtures/labeler/real/${TAXONOMY}.jsonl --split tests/fixtures/labeler/real/split.json
          --part older --threshold 0.5 --out ${OUT}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tracker train failed (${rc}): ${out}${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT} analyzers/taxonomies/models/${TAXONOMY}.json
                RESULT_VARIABLE same)
if(NOT same EQUAL 0)
  message(FATAL_ERROR "analyzers/taxonomies/models/${TAXONOMY}.json is not what `perftriage tracker train --from "
                      "tests/fixtures/labeler/real/history/${TAXONOMY}.jsonl --from tests/fixtures/labeler/real/"
                      "${TAXONOMY}.jsonl --split tests/fixtures/labeler/real/split.json --part older --threshold 0.5` "
                      "makes now: retrain it (docs/labeler-eval.md) and commit the result")
endif()
