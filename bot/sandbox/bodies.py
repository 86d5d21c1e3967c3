"""Reading a request's body the way the fake has always read it, at a fraction of the cost.

aiohttp's ``request.content_type`` and its multipart reader parse every header through the standard
library's ``email`` package, which costs more than the rest of a request. discord.py always sends the
same few shapes (``application/json``, or ``multipart/form-data`` with a plain boundary, a ``payload_json``
part and ``files[N]`` parts, each with ``Content-Type`` and ``Content-Disposition``), so those are read
here directly, and only when every byte of the body has that shape. Anything else (another content type,
a quoted boundary, a preamble, an encoded part, a nested multipart, a broken frame) goes to aiohttp's own
reader over the same bytes, so what is accepted, what is refused and with which error stays exactly as it
was. ``tests/sandbox/test_bodies.py`` checks both readers give the same answer on generated bodies.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from typing import Any

from aiohttp import BodyPartReader, MultipartReader, StreamReader, hdrs, web
from aiohttp.base_protocol import BaseProtocol
from multidict import CIMultiDictProxy

from bot.sandbox.errors import DiscordError

# The largest request the server accepts (aiohttp's client_max_size).
MAX_BODY = 64 * 1024 * 1024

# A Content-Type that aiohttp (through ``email``) reads as multipart/form-data with exactly this boundary.
_PLAIN_FORM = re.compile(r"multipart/form-data; boundary=([0-9A-Za-z]{1,70})")
# One part header, as aiohttp's header parser would keep it: a known name, one space, a value with no
# surrounding blanks and nothing but printable ASCII.
_PART_HEADER = re.compile(rb"((?i:content-type|content-disposition)): ([\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)")
# Quoted values with no backslash, semicolon or leading slash, which aiohttp's parser keeps as they are.
_VALUE = r'"([^"\\;/\x00-\x1f\x7f][^"\\;\x00-\x1f\x7f]*)"'
_DISPOSITION = re.compile(rf"form-data; name={_VALUE}(?:; filename={_VALUE})?")
# A part's type with no parameter but the charset aiohttp would decode it with anyway (discord.py sends
# payload_json as text/plain; charset=utf-8).
_PART_TYPE = re.compile(r"[A-Za-z0-9.+-]+/[A-Za-z0-9.+-]+(?:; charset=utf-8)?")


@dataclass
class Upload:
    """One ``files[N]`` part of a multipart body."""

    field: str
    filename: str
    content_type: str | None
    data: bytes


@dataclass
class _Part:
    name: str
    filename: str | None
    content_type: str | None
    data: bytes


async def read_body(request: web.Request) -> tuple[Any, list[Upload], bool]:
    """The JSON body (or ``payload_json``), the uploads, and whether the body was multipart."""
    if not request.can_read_body:
        return None, [], False
    header = request.headers.get(hdrs.CONTENT_TYPE)
    if header == "application/json":
        return _json(await request.read(), "utf-8"), [], False
    plain = _PLAIN_FORM.fullmatch(header) if header is not None else None
    if plain is not None:
        raw = await request.content.read()
        body, uploads = await read_multipart(
            raw,
            request.headers,
            client_max_size=request.client_max_size,
            max_field_size=request.protocol.max_field_size,
            max_headers=request.protocol.max_headers,
        )
        return body, uploads, True
    content_type = request.content_type
    if content_type == "application/json":
        return _json(await request.read(), request.charset or "utf-8"), [], False
    if content_type == "multipart/form-data":
        return (*await _read_parts(await request.multipart()), True)
    raw = await request.read()
    if raw:
        raise DiscordError(400, 50035, f"Unsupported Content-Type {content_type!r}")
    return None, [], False


def _json(raw: bytes, encoding: str) -> Any:
    try:
        return json.loads(raw.decode(encoding))
    except ValueError:
        raise DiscordError(400, 50109, "The request body contains invalid JSON.") from None


async def read_multipart(
    raw: bytes,
    headers: CIMultiDictProxy[str],
    *,
    client_max_size: int = MAX_BODY,
    max_field_size: int = 8190,
    max_headers: int = 128,
    fast: bool = True,
) -> tuple[Any, list[Upload]]:
    """A whole multipart/form-data body: read directly when it has discord.py's shape, else by aiohttp."""
    plain = _PLAIN_FORM.fullmatch(headers.get(hdrs.CONTENT_TYPE, ""))
    parts = _plain_parts(raw, plain.group(1).encode()) if fast and plain and len(raw) <= client_max_size else None
    if parts is None:
        reader = MultipartReader(
            headers,
            _replay(raw),
            client_max_size=client_max_size,
            max_field_size=max_field_size,
            max_headers=max_headers,
            max_size_error_cls=web.HTTPRequestEntityTooLarge,
        )
        return await _read_parts(reader)
    body: Any = None
    uploads: list[Upload] = []
    for part in parts:
        if part.name == "payload_json":
            try:
                body = json.loads(part.data.decode("utf-8"))
            except ValueError:
                raise DiscordError(400, 50109, "payload_json contains invalid JSON.") from None
        else:
            uploads.append(Upload(part.name, part.filename or part.name, part.content_type, part.data))
    return body, uploads


async def _read_parts(reader: MultipartReader) -> tuple[Any, list[Upload]]:
    """aiohttp's reading, for every body that is not in discord.py's plain shape."""
    body: Any = None
    uploads: list[Upload] = []
    while True:
        part = await reader.next()
        if part is None:
            break
        if not isinstance(part, BodyPartReader):
            raise DiscordError(400, 50035, "Nested multipart bodies are not accepted")
        name = part.name or ""
        if name == "payload_json":
            try:
                body = json.loads(await part.text())
            except ValueError:
                raise DiscordError(400, 50109, "payload_json contains invalid JSON.") from None
        else:
            uploads.append(
                Upload(
                    field=name,
                    filename=part.filename or name,
                    content_type=part.headers.get(hdrs.CONTENT_TYPE),
                    data=bytes(await part.read()),
                )
            )
    return body, uploads


def _plain_parts(raw: bytes, boundary: bytes) -> list[_Part] | None:
    """The parts of a body framed exactly as aiohttp's writer frames form data, or None for any other body.

    The frame: ``--B\\r\\n`` then parts separated by ``\\r\\n--B\\r\\n`` and closed by ``\\r\\n--B--\\r\\n``,
    no preamble, no epilogue; each part a ``Content-Disposition: form-data; name="..."`` (with perhaps a
    ``filename``) and perhaps a ``Content-Type`` that is not multipart, then a blank line and the data.
    """
    opening = b"--" + boundary + b"\r\n"
    if not raw.startswith(opening):
        return None
    pieces = raw[len(opening) :].split(b"\r\n--" + boundary)
    if len(pieces) < 2 or pieces[-1] != b"--\r\n":
        return None
    parts = []
    for index, piece in enumerate(pieces[:-1]):
        if index:
            if not piece.startswith(b"\r\n"):
                return None
            piece = piece[2:]
        head, found, data = piece.partition(b"\r\n\r\n")
        if not found:
            return None
        seen: dict[str, str] = {}
        for line in head.split(b"\r\n"):
            header = _PART_HEADER.fullmatch(line)
            if header is None:
                return None
            key = header.group(1).decode().lower()
            if key in seen:
                return None
            seen[key] = header.group(2).decode()
        disposition = _DISPOSITION.fullmatch(seen.get("content-disposition", ""))
        content_type = seen.get("content-type")
        if disposition is None or disposition.group(1) == "_charset_":
            return None
        if content_type is not None and (
            not _PART_TYPE.fullmatch(content_type) or content_type.lower().startswith("multipart/")
        ):
            return None
        parts.append(_Part(disposition.group(1), disposition.group(2), content_type, data))
    return parts


class _Quiet(BaseProtocol):
    """The protocol of a stream that is already complete: there is no connection to pause or resume."""

    def pause_reading(self) -> None:
        return None

    def resume_reading(self, resume_parser: bool = True) -> None:
        return None


def _replay(raw: bytes) -> StreamReader:
    """The body's bytes as a finished stream, for aiohttp's multipart reader."""
    loop = asyncio.get_running_loop()
    stream = StreamReader(_Quiet(loop), max(len(raw), 2**16), loop=loop)
    stream.feed_data(raw)
    stream.feed_eof()
    return stream
