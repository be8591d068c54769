# Whether programs carry the test-only fault hooks (core/distributed/fault_hooks.h): a build with them holds
# the variables' names (ACCUMLAB_FAULT_RANK, ...) in its read-only data, one without them does not.
#   cmake -DEXPECT=ON|OFF -DPROGRAMS="a;b" -P cmake/check_fault_hooks.cmake
# Fails, naming the program, when one of them disagrees with EXPECT. The test build checks ON
# (tests/app, fault_hooks), the package OFF (scripts/package.sh).
if(NOT DEFINED EXPECT OR NOT PROGRAMS)
  message(FATAL_ERROR "usage: cmake -DEXPECT=ON|OFF -DPROGRAMS=\"a;b\" -P check_fault_hooks.cmake")
endif()
foreach(program IN LISTS PROGRAMS)
  if(NOT EXISTS "${program}")
    message(FATAL_ERROR "${program}: no such program")
  endif()
  file(STRINGS "${program}" hooks REGEX "ACCUMLAB_FAULT_[A-Z]+" LIMIT_COUNT 1)
  if(EXPECT AND NOT hooks)
    message(FATAL_ERROR "${program} has no fault hooks, but this build should have them (ACCUMLAB_FAULT_HOOKS=ON)")
  elseif(NOT EXPECT AND hooks)
    message(FATAL_ERROR "${program} carries the test-only fault hooks (${hooks}); build it with -DACCUMLAB_FAULT_HOOKS=OFF")
  endif()
  message(STATUS "${program}: fault hooks ${EXPECT}, as expected")
endforeach()
