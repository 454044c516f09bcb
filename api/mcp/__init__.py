"""The MCP surface (official ``mcp`` SDK): the tools of :mod:`api.mcp.tools` over stdio
(``vgdb mcp``) and streamable HTTP (``/mcp`` on ``vgdb serve``). See docs/mcp.md."""

from api.mcp.server import Caller, McpSettings, build_server, harness_config
from api.mcp.tools import TOOLS, McpTool

__all__ = ["TOOLS", "Caller", "McpSettings", "McpTool", "build_server", "harness_config"]
