"""`repo-mapper mcp` through the official MCP Python SDK (issue 15).

    python mcp_client_check.py REPO_MAPPER_BINARY SAMPLE_REPO_COPY

Starts the server as an agent would (stdio), lists the tools, calls them, and checks that
`repo_map`'s map equals the CLI's for the same request, that a second call with another
chat file answers too, that `search_identifiers` finds the definition, that `show_symbol`
gives its source (issue 27), and that bad input
is a one-line tool error; each tool declares its output schema and read-only hints, and
answers with structured content that the SDK validates against that schema, and a cold
call reports its scan's progress (issue 27). Prints one line per check; exits 1 on the first failure.
"""

import asyncio
import json
import subprocess
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def cli_map(binary, root, args):
    out = subprocess.run(
        [binary, root, *args], cwd=root, capture_output=True, text=True, check=True
    )
    return out.stdout


def check(cond, what):
    if not cond:
        print(f"mcp python client: FAILED: {what}")
        sys.exit(1)
    print(f"mcp python client: ok: {what}")


async def call(session, tool, args):
    result = await session.call_tool(tool, args)
    text = result.content[0].text
    return result, text


async def main(binary, root):
    params = StdioServerParameters(command=binary, args=["mcp", "--root", root])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.protocol_version in {"2025-06-18", "2025-11-25"},
                  f"the SDK and the server agree on protocol revision {init.protocol_version}")
            tools = {t.name: t for t in (await session.list_tools()).tools}
            check(set(tools) == {"repo_map", "search_identifiers", "show_symbol", "outline"},
                  "the four tools listed")
            props = tools["repo_map"].input_schema["properties"]
            check({"project_root", "chat_files", "token_limit", "message"} <= set(props),
                  "repo_map takes RepoMapper's parameters and ours")
            for tool in tools.values():
                hints = tool.annotations
                check(tool.output_schema is not None and hints is not None
                      and hints.read_only_hint is True and hints.open_world_hint is False,
                      f"{tool.name} declares its output schema and read-only hints")

            heard = []

            async def progress(done, total, message):
                heard.append((done, total))

            for chat in ["app/services/checkout.py", "web/routes.py"]:
                args = {"project_root": root, "chat_files": [chat], "token_limit": 1024}
                result = await session.call_tool("repo_map", args, progress_callback=progress)
                text = result.content[0].text
                if chat == "app/services/checkout.py":
                    check(heard and heard[-1][0] == heard[-1][1] and heard[-1][1] > 0,
                          f"the cold call reports its scan's progress: {heard[-1:]}")
                answer = json.loads(text)
                check(not result.is_error and answer["map"] == cli_map(binary, root, ["-c", chat]),
                      f"repo_map with chat file {chat} equals the CLI's map")
                check(result.structured_content == answer,
                      "repo_map's structured content (validated by the SDK) is its text")

            message = "Why does place_order fail in checkout.py?"
            args = {"project_root": root, "message": message, "token_limit": 1024}
            result, text = await call(session, "repo_map", args)
            answer = json.loads(text)
            check(answer["map"] == cli_map(binary, root, ["--message", message]),
                  "repo_map with a message equals the CLI's --message map")
            check(answer["report"]["mentions"]["files"] == ["app/services/checkout.py"],
                  "the message's file mention is reported")

            args = {"project_root": root, "query": "place_order"}
            result, text = await call(session, "search_identifiers", args)
            check(result.structured_content == json.loads(text),
                  "search_identifiers' structured content (validated by the SDK) is its text")
            found = json.loads(text)["results"]
            check(found and found[0]["kind"] == "definition"
                  and found[0]["file"] == "app/services/checkout.py",
                  "search_identifiers finds the definition first")

            args = {"project_root": root, "symbol": "app/services/checkout.py#place_order"}
            result, text = await call(session, "show_symbol", args)
            check(result.structured_content == json.loads(text),
                  "show_symbol's structured content (validated by the SDK) is its text")
            shown = json.loads(text)["definitions"]
            check(len(shown) == 1 and shown[0]["source"].lstrip().startswith("def place_order"),
                  "show_symbol gives the definition's source")

            args = {"project_root": root, "paths": ["app/services/checkout.py"]}
            result, text = await call(session, "outline", args)
            check(result.structured_content == json.loads(text),
                  "outline's structured content (validated by the SDK) is its text")
            check("place_order" in json.loads(text)["outline"], "outline lists the method")
            check("imports local: app.models.order" in json.loads(text)["outline"],
                  "outline sorts imports")

            # A small cap pages the outline: every page within it, cursors until the end.
            args = {"project_root": root, "paths": ["app/services/checkout.py"], "max_tokens": 60}
            pages, shown = 0, 0
            while pages < 20:
                result, text = await call(session, "outline", args)
                page = json.loads(text)
                pages += 1
                shown += page["files"][0]["shown"]
                if page["next_cursor"] is None:
                    break
                args["cursor"] = page["next_cursor"]
            check(pages > 1 and shown == page["files"][0]["symbols"],
                  "outline's pages, cursor after cursor, show every symbol once")

            result, text = await call(session, "repo_map", {"project_root": "/no/such/dir"})
            check(result.is_error and "\n" not in text, "a missing root is a one-line tool error")


asyncio.run(main(sys.argv[1], sys.argv[2]))
