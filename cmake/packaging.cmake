# Installation beyond the executables (each app's CMakeLists installs its own), and the
# Debian package: `scripts/package.sh` (or `cpack --config build/CPackConfig.cmake`) makes
# accumlab_<version>_<arch>.deb from an existing build.
#
# Layout under the prefix (/usr in the package):
#   bin/accumlab, bin/accumlab-cli
#   share/applications/org.accumlab.AccumLab.desktop
#   share/metainfo/org.accumlab.AccumLab.metainfo.xml
#   share/icons/hicolor/{scalable,16x16,...,256x256}/apps/org.accumlab.AccumLab.{svg,png}
#   share/doc/accumlab/ (README, the font's licence), share/doc/accumlab/docs/ (the guides and reference pages)
# Translations and the Vazirmatn font are compiled into the program as Qt resources.

set(ACCUMLAB_APP_ID org.accumlab.AccumLab)
set(_desktop "${PROJECT_SOURCE_DIR}/resources/desktop")

if(ACCUMLAB_BUILD_GUI)
  # The release entry's version is PROJECT_VERSION.
  configure_file("${_desktop}/${ACCUMLAB_APP_ID}.metainfo.xml.in"
                 "${PROJECT_BINARY_DIR}/desktop/${ACCUMLAB_APP_ID}.metainfo.xml" @ONLY)
  set(ACCUMLAB_METAINFO "${PROJECT_BINARY_DIR}/desktop/${ACCUMLAB_APP_ID}.metainfo.xml" CACHE INTERNAL "")
  set(ACCUMLAB_DESKTOP_FILE "${_desktop}/${ACCUMLAB_APP_ID}.desktop" CACHE INTERNAL "")
  install(FILES "${_desktop}/${ACCUMLAB_APP_ID}.desktop" DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES "${ACCUMLAB_METAINFO}" DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
  install(FILES "${_desktop}/${ACCUMLAB_APP_ID}.svg" DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
  foreach(_size 16 32 48 64 128 256)
    install(FILES "${_desktop}/icons/${_size}x${_size}/${ACCUMLAB_APP_ID}.png"
            DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${_size}x${_size}/apps)
  endforeach()
endif()
install(FILES "${PROJECT_SOURCE_DIR}/README.md" "${PROJECT_SOURCE_DIR}/LICENSE" "${PROJECT_SOURCE_DIR}/resources/fonts/OFL.txt"
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/accumlab)
# The teacher's guides, the teaching card and the reference pages beside the README (which links to them).
file(GLOB ACCUMLAB_DOC_PAGES "${PROJECT_SOURCE_DIR}/docs/*.md")
install(FILES ${ACCUMLAB_DOC_PAGES} DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/accumlab/docs)

# ---- CPack: one .deb ------------------------------------------------------------------
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME accumlab)
set(CPACK_PACKAGE_VENDOR "AccumLab")
set(CPACK_PACKAGE_CONTACT "AccumLab developers <dev@accumlab.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
    "AccumLab is a desktop app (Persian and English) and a command-line tool that teach gradient accumulation: micro-batches, loss divided by accum_steps, one optimizer step per effective batch, and the proof that it matches the full batch, on real LibTorch tensors.")
set(CPACK_PACKAGE_HOMEPAGE_URL "${PROJECT_HOMEPAGE_URL}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# The runtime libraries' packages (not -dev) come from dpkg-shlibdeps over the binaries.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# What dpkg-shlibdeps cannot name. The BLAS: the apps' OpenBLAS build (top-level
# CMakeLists.txt), linked by a soname that the metapackage libopenblas0 satisfies with any of
# OpenBLAS's builds; without it, OpenBLAS's pthread build, which LibTorch reaches through the
# system's BLAS (the reference BLAS is ~6x slower on the lesson's matmuls). And Qt's own Persian
# strings, loaded at run time.
if(ACCUMLAB_OPENBLAS_OPENMP_DIR)
  set(_runtime_extra "libopenblas0-openmp")
else()
  set(_runtime_extra "libopenblas0-pthread")
endif()
if(ACCUMLAB_BUILD_GUI)
  string(APPEND _runtime_extra ", qt6-translations-l10n")
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${_runtime_extra}")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "fonts-dejavu-core")
include(CPack)
