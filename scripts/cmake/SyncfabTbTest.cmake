# Harness test binaries (tb/, SYNCFAB_TEST) registered with ctest.
#
#   syncfab_add_tb_test(<target> SOURCES <src>... [LIBS <lib>...] [LABELS <label>...]
#                       [REGRESS_SEEDS A-B] [ARGS <extra args>...] [TIMEOUT <s>])
#
# Builds executable <target> (linked with syncfab_tb_main, which provides
# main(), and syncfab_warnings) and registers:
#   <target>          seed 1, with LABELS              (make test)
#   <target>.regress  every seed A..B, LABELS + slow    (make regress)
# Both write JUnit XML to ${CMAKE_BINARY_DIR}/test-results/. ARGS (e.g.
# --param ops=1000000) go to both. The binary's path is listed in
# ${CMAKE_BINARY_DIR}/tb-tests/<target>.txt, which scripts/waves.py reads to find
# the binary that holds a test.

function(syncfab_add_tb_test target)
  cmake_parse_arguments(T "" "REGRESS_SEEDS;TIMEOUT" "SOURCES;LIBS;LABELS;ARGS" ${ARGN})
  if(T_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "syncfab_add_tb_test(${target}): unknown arguments ${T_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT T_SOURCES)
    message(FATAL_ERROR "syncfab_add_tb_test(${target}) needs SOURCES")
  endif()
  if(T_REGRESS_SEEDS AND NOT T_REGRESS_SEEDS MATCHES "^[0-9]+-[0-9]+$")
    message(FATAL_ERROR
      "syncfab_add_tb_test(${target}): REGRESS_SEEDS '${T_REGRESS_SEEDS}' is not A-B")
  endif()

  add_executable(${target} ${T_SOURCES})
  target_link_libraries(${target} PRIVATE syncfab_tb_main ${T_LIBS} syncfab_warnings)

  set(_results "${CMAKE_BINARY_DIR}/test-results")
  add_test(NAME ${target}
    COMMAND ${target} --seed 1 ${T_ARGS} --junit ${_results}/${target}.xml)
  set_tests_properties(${target} PROPERTIES LABELS "${T_LABELS}")
  if(T_TIMEOUT)
    set_tests_properties(${target} PROPERTIES TIMEOUT ${T_TIMEOUT})
  endif()

  if(T_REGRESS_SEEDS)
    add_test(NAME ${target}.regress
      COMMAND ${target} --seeds ${T_REGRESS_SEEDS} ${T_ARGS}
              --junit ${_results}/${target}.regress.xml)
    set_tests_properties(${target}.regress PROPERTIES LABELS "${T_LABELS};slow")
  endif()

  file(GENERATE OUTPUT "${CMAKE_BINARY_DIR}/tb-tests/${target}.txt"
       CONTENT "$<TARGET_FILE:${target}>\n")
endfunction()
