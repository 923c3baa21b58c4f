# The golden model must stand on its own: it links only the hardware-access
# layer and the generated formats, and includes no driver header, so that a
# driver bug cannot hide in the model too. This module turns that rule into a
# test.
#
#   syncfab_add_model_deps_test(<test name>
#     CHECK_DIRS <dir>...   source folders (relative to the top) whose targets
#                           and C/C++ files are held to the rule
#     ALLOW <target>...)    the only other project targets they may link
#
# At the end of the configure, when every target exists, it writes
# ${CMAKE_BINARY_DIR}/model_deps/targets.txt (each project target: type,
# source folder and link items as written) and, at generate time,
# include_dirs.txt (each target's include path with usage requirements
# resolved). The test runs scripts/check_model_deps.py on them: the link
# closure of every checked target, and every #include of every file under the
# checked folders (scanned when the test runs, so a new include is caught
# without a re-configure), resolved against that include path.

set(_syncfab_model_deps_dir "${CMAKE_BINARY_DIR}/model_deps")

# Every target defined in `dir` and the folders below it.
function(_syncfab_targets_below dir out)
  get_property(_targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  get_property(_subs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(_sub IN LISTS _subs)
    _syncfab_targets_below("${_sub}" _more)
    list(APPEND _targets ${_more})
  endforeach()
  set(${out} ${_targets} PARENT_SCOPE)
endfunction()

# Deferred to the end of the top-level folder: by then every target is known.
function(_syncfab_write_model_deps)
  set(_dir "${CMAKE_BINARY_DIR}/model_deps")
  _syncfab_targets_below("${CMAKE_SOURCE_DIR}" _targets)
  set(_links "")
  set(_incs "")
  foreach(_t IN LISTS _targets)
    get_target_property(_type ${_t} TYPE)
    if(_type STREQUAL "UTILITY" OR _type STREQUAL "GLOBAL_TARGET")
      continue()
    endif()
    get_target_property(_src ${_t} SOURCE_DIR)
    string(APPEND _links "target\t${_t}\t${_type}\t${_src}\n")
    set(_items "")
    if(NOT _type STREQUAL "INTERFACE_LIBRARY")
      get_target_property(_items ${_t} LINK_LIBRARIES)
      # The include path the target is compiled with (its own and every
      # linked target's usage requirements), resolved at generate time.
      string(APPEND _incs "include\t${_t}\t$<TARGET_PROPERTY:${_t},INCLUDE_DIRECTORIES>\n")
    endif()
    get_target_property(_iface ${_t} INTERFACE_LINK_LIBRARIES)
    foreach(_item IN LISTS _items _iface)
      if(_item AND NOT _item MATCHES "-NOTFOUND$")
        string(APPEND _links "link\t${_t}\t${_item}\n")
      endif()
    endforeach()
    if(NOT _type STREQUAL "EXECUTABLE")
      # What the target offers its users: where a header that is not on a
      # checked target's path comes from.
      string(APPEND _incs
        "offers\t${_t}\t$<TARGET_PROPERTY:${_t},INTERFACE_INCLUDE_DIRECTORIES>\n")
    endif()
  endforeach()
  # Link items may hold generator expressions ($<LINK_ONLY:...>): written as
  # is, without evaluation; the checker reads target names out of them.
  file(WRITE "${_dir}/targets.txt" "${_links}")
  file(GENERATE OUTPUT "${_dir}/include_dirs.txt" CONTENT "${_incs}")
endfunction()

function(syncfab_add_model_deps_test name)
  cmake_parse_arguments(PARSE_ARGV 1 _a "" "" "CHECK_DIRS;ALLOW")
  get_property(_scheduled GLOBAL PROPERTY _syncfab_model_deps_scheduled)
  if(NOT _scheduled)
    set_property(GLOBAL PROPERTY _syncfab_model_deps_scheduled TRUE)
    cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _syncfab_write_model_deps)
  endif()
  set(_args "")
  foreach(_d IN LISTS _a_CHECK_DIRS)
    list(APPEND _args --check-dir "${_d}")
  endforeach()
  foreach(_t IN LISTS _a_ALLOW)
    list(APPEND _args --allow "${_t}")
  endforeach()
  add_test(NAME ${name}
    COMMAND "${SYNCFAB_PYTHON}" "${CMAKE_SOURCE_DIR}/scripts/check_model_deps.py"
            --targets "${_syncfab_model_deps_dir}/targets.txt"
            --include-dirs "${_syncfab_model_deps_dir}/include_dirs.txt"
            --source-dir "${CMAKE_SOURCE_DIR}" --binary-dir "${CMAKE_BINARY_DIR}" ${_args})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1")
endfunction()
