// The format package, generated from rtl/spec/formats.toml by scripts/gen_formats.py
// at CMake configure time. Include it from another list with `-F <path>/syncfab_fmt_pkg.f`.
${SYNCFAB_GEN}/syncfab_fmt_pkg.sv
