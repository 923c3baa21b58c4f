# Register blocks from SystemRDL: one call per block, everything generated
# into the build tree (never committed).
#
#   syncfab_peakrdl(<ip> RDL <file.rdl> TITLE "<reference title>"
#                   [COUNTERS <C++ namespace>])
#
# writes, at configure time (verilate() needs the SV to exist then):
#   ${SYNCFAB_GEN_DIR}/<ip>/<ip>_reg_pkg.sv, <ip>_reg_top.sv (+ hwif report)
#   ${SYNCFAB_GEN_DIR}/include/syncfab/regs/<ip>.h   (C header for the driver)
#   ${SYNCFAB_GEN_DIR}/include/syncfab/regs/<ip>_counters.hpp  (with COUNTERS:
#       the block's event counters as a C++ enum in that namespace, from the
#       RDL's counter fields; scripts/rdl_counters.py)
#   ${SYNCFAB_DOCS_DIR}/registers/<ip>.md, <ip>_html/ (register reference)
# and defines the INTERFACE library syncfab_<ip>_header (the C header's
# include folder, SYSTEM: generated code is not held to our warnings) and the
# target docs_<ip> (hooked into `docs`).
#
# Each generator writes into a scratch folder first and results are copied
# only when they differ, so a re-configure does not re-verilate or rebuild
# anything whose registers did not change.
#
# Regblock options, the same for every block:
#   --cpuif apb4-flat       APB4 with plain ports (a hand-written wrapper renames them).
#   --default-reset arst_n  asynchronous active-low reset for every field and for
#                           the CPU interface (no cpuif_reset signal in the RDL).
#   --err-if-bad-addr       PSLVERR on an address that maps to nothing.
#   --err-if-bad-rw         PSLVERR on a write to a read-only register or a read
#                           of a write-only one (the access has no effect).
#   --addr-width 12         decode the block's whole 4 KiB window, so addresses
#                           past the map's end are errors too.
#   --type-style hier       struct type names follow the hierarchy
#                           (<ip>__INTR_STATUS__in_t), not property hashes.
#   --module/package-name   lowRISC naming: <ip>_reg_top, <ip>_reg_pkg.

# Runs `python -m peakrdl <args>`; a failure stops the configure with the
# generator's own message.
function(_syncfab_peakrdl_run rdl what)
  execute_process(
    COMMAND "${SYNCFAB_PYTHON}" -m peakrdl ${ARGN}
    RESULT_VARIABLE _rc
    OUTPUT_VARIABLE _out
    ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR
      "syncfab: PeakRDL ${what} failed on ${rdl} (exit ${_rc}):\n${_out}${_err}"
      "(an RDL error names its line above; 'No module named ...' means the Python "
      "environment is incomplete: 'make deps' installs PeakRDL)")
  endif()
endfunction()

# Copies every file under <from> to <to>, touching only those that changed.
function(_syncfab_peakrdl_publish from to)
  file(GLOB_RECURSE _files RELATIVE "${from}" "${from}/*")
  foreach(_f IN LISTS _files)
    get_filename_component(_d "${to}/${_f}" DIRECTORY)
    file(MAKE_DIRECTORY "${_d}")
    file(COPY_FILE "${from}/${_f}" "${to}/${_f}" ONLY_IF_DIFFERENT)
  endforeach()
endfunction()

function(syncfab_peakrdl ip)
  cmake_parse_arguments(PARSE_ARGV 1 A "" "RDL;TITLE;COUNTERS" "")
  if(NOT A_RDL OR NOT A_TITLE)
    message(FATAL_ERROR "syncfab_peakrdl(${ip}): RDL and TITLE are required")
  endif()
  set(_gen "${SYNCFAB_GEN_DIR}/${ip}")
  set(_inc "${SYNCFAB_GEN_DIR}/include")
  set(_doc "${SYNCFAB_DOCS_DIR}/registers")
  set(_scratch "${CMAKE_CURRENT_BINARY_DIR}/peakrdl_${ip}")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${A_RDL}"
    "${CMAKE_SOURCE_DIR}/scripts/rdl_counters.py")

  file(REMOVE_RECURSE "${_scratch}")
  file(MAKE_DIRECTORY "${_scratch}/sv" "${_scratch}/inc/syncfab/regs" "${_scratch}/doc/${ip}_html")

  _syncfab_peakrdl_run("${A_RDL}" "regblock"
    regblock "${A_RDL}" -o "${_scratch}/sv"
    --cpuif apb4-flat
    --default-reset arst_n
    --err-if-bad-addr --err-if-bad-rw
    --addr-width 12
    --type-style hier
    --module-name ${ip}_reg_top --package-name ${ip}_reg_pkg
    --hwif-report)
  # C header: field masks/positions/reset values as macros, offsets through
  # the packed struct <ip>_t (offsetof), sizes through sizeof.
  _syncfab_peakrdl_run("${A_RDL}" "c-header"
    c-header "${A_RDL}" -o "${_scratch}/inc/syncfab/regs/${ip}.h"
    --type-style hier)
  if(A_COUNTERS)
    execute_process(
      COMMAND "${SYNCFAB_PYTHON}" "${CMAKE_SOURCE_DIR}/scripts/rdl_counters.py" "${A_RDL}" ${ip}
              "${A_COUNTERS}" "${_scratch}/inc/syncfab/regs/${ip}_counters.hpp"
      RESULT_VARIABLE _rc
      ERROR_VARIABLE _err)
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR "syncfab: the counter list of ${A_RDL} failed:\n${_err}")
    endif()
  endif()
  _syncfab_peakrdl_run("${A_RDL}" "markdown"
    markdown "${A_RDL}" -o "${_scratch}/doc/${ip}.md")
  _syncfab_peakrdl_run("${A_RDL}" "html"
    html "${A_RDL}" -o "${_scratch}/doc/${ip}_html"
    --title "${A_TITLE}")

  _syncfab_peakrdl_publish("${_scratch}/sv" "${_gen}")
  _syncfab_peakrdl_publish("${_scratch}/inc" "${_inc}")
  _syncfab_peakrdl_publish("${_scratch}/doc" "${_doc}")

  add_library(syncfab_${ip}_header INTERFACE)
  target_include_directories(syncfab_${ip}_header SYSTEM INTERFACE "${_inc}")

  # `make docs`: the reference is written at configure time; this target only
  # names where it is.
  add_custom_target(docs_${ip}
    COMMAND ${CMAKE_COMMAND} -E echo "${A_TITLE}: ${_doc}/${ip}.md, ${_doc}/${ip}_html/index.html")
  add_dependencies(docs docs_${ip})
endfunction()
