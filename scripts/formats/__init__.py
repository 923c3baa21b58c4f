"""syncfab format generator: rtl/spec/formats.toml -> SV package, C++ header, Markdown."""

from .spec import SpecError, load

__all__ = ["SpecError", "load"]
