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
# ${CMAKE_BINARY_DIR}/tb-tests/<target>.txt (first line), which scripts/waves.py
# reads to find the binary that holds a test; the second line names the
# verilated libraries it links (`models: vl_...`, directly or through other
# libraries) and the third its ARGS, for scripts/bench_sim.py.

# The verilated libraries (vl_*) `target` links, directly or through the
# libraries it links.
function(syncfab_verilated_libs_of target out)
  set(_seen)
  set(_todo ${target})
  set(_found)
  while(_todo)
    list(POP_FRONT _todo _t)
    if(_t IN_LIST _seen OR NOT TARGET ${_t})
      continue()
    endif()
    list(APPEND _seen ${_t})
    if(_t MATCHES "^vl_")
      list(APPEND _found ${_t})
    endif()
    get_target_property(_libs ${_t} LINK_LIBRARIES)
    get_target_property(_ilibs ${_t} INTERFACE_LINK_LIBRARIES)
    foreach(_l IN LISTS _libs _ilibs)
      if(_l AND NOT _l MATCHES "NOTFOUND$" AND NOT _l MATCHES "^\\$<")
        list(APPEND _todo ${_l})
      endif()
    endforeach()
  endwhile()
  set(${out} "${_found}" PARENT_SCOPE)
endfunction()

set(SYNCFAB_COV_SEEDS "1-5" CACHE STRING "seeds of the seeded RTL tests in the coverage tree (make coverage COV_SEEDS=A-B)")

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
  # The coverage tree (SYNCFAB_COVERAGE): one test per binary, over the
  # coverage seeds if it is a seeded one (make coverage COV_SEEDS=A-B).
  if(SYNCFAB_COVERAGE AND T_REGRESS_SEEDS)
    add_test(NAME ${target}
      COMMAND ${target} --seeds ${SYNCFAB_COV_SEEDS} ${T_ARGS} --junit ${_results}/${target}.xml)
    set(T_REGRESS_SEEDS)
  else()
    add_test(NAME ${target}
      COMMAND ${target} --seed 1 ${T_ARGS} --junit ${_results}/${target}.xml)
  endif()
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

  syncfab_verilated_libs_of(${target} _models)
  list(JOIN _models " " _models)
  list(JOIN T_ARGS " " _args)
  file(GENERATE OUTPUT "${CMAKE_BINARY_DIR}/tb-tests/${target}.txt"
       CONTENT "$<TARGET_FILE:${target}>\nmodels: ${_models}\nargs: ${_args}\n")
endfunction()
