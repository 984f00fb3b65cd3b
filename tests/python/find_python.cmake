# Sets PLAIDML_TEST_PYTHON to a Python 3 interpreter that can import numpy (the Python binding's
# one dependency), or to "" with PLAIDML_TEST_PYTHON_WHY saying what is missing. Tried in order:
# -DPLAIDML_PYTHON=<path>, /usr/bin/python3 (Debian's python3-numpy), python3 on the PATH.
if(DEFINED PLAIDML_TEST_PYTHON)
  return()
endif()
find_program(plaidml_path_python3 NAMES python3)
set(PLAIDML_TEST_PYTHON "")
set(PLAIDML_TEST_PYTHON_WHY "no python3 found")
foreach(candidate ${PLAIDML_PYTHON} /usr/bin/python3 ${plaidml_path_python3})
  if(candidate AND EXISTS ${candidate})
    execute_process(COMMAND ${candidate} -c "import numpy" RESULT_VARIABLE rc OUTPUT_QUIET
                    ERROR_QUIET)
    if(rc EQUAL 0)
      set(PLAIDML_TEST_PYTHON ${candidate})
      break()
    endif()
    set(PLAIDML_TEST_PYTHON_WHY "python3 found (${candidate}) but numpy is missing")
  endif()
endforeach()
