"""Receiver types the Python resolver takes from the code around a call when the plain
lookup says nothing (issue 22, round 4), each on the shape the standard library writes it:
a local assigned in two branches (``email._policybase``: ``h = header.Header(...)`` in one,
``h = value`` in another), every ``return`` of an unannotated function, modules included
(``email.charset``'s ``_get_encoder`` returning ``email.base64mime`` or
``email.quoprimime``), a parameter's default (``email.message``'s ``policy=compat32``),
``isinstance`` on ``self.x``, property getters read in ``if``/``return``/``and``, and types
from installed stubs: a conditional import of a C module beside a def (``from _asyncio import
get_running_loop``, typed by typeshed's ``_asyncio.pyi``), and a module's own stub for
parameters its source leaves unannotated (``asyncio.streams.StreamWriter``)."""

from __future__ import annotations

import textwrap

import pytest

from ingest.extract import extract
from ingest.resolve import resolve
from ingest.resolve.python_stubs import Stubs, parameters, stubs
from ingest.resolve.rows import EdgeRow, ResolveResult

MAIL = {
    "mail/__init__.py": "",
    "mail/header.py": """
        class Header:
            def __init__(self, s=None, charset=None, header_name=None):
                self._chunks = []

            def encode(self, splitchars=';, ', maxlinelen=None, linesep='\\n'):
                return ''.join(self._chunks)
        """,
    "mail/base64mime.py": """
        def header_encode(header_bytes, charset='iso-8859-1'):
            return header_bytes

        def header_length(bytearray):
            return len(bytearray)
        """,
    "mail/quoprimime.py": """
        def header_encode(header_bytes, charset='iso-8859-1'):
            return header_bytes

        def header_length(bytearray):
            return len(bytearray)
        """,
    "mail/policy.py": """
        from mail import header


        class Policy:
            max_line_length = 78

            def header_max_count(self, name):
                return None

            @property
            def strict(self):
                return True


        class Compat32(Policy):
            def _fold(self, name, value, sanitize):
                parts = []
                if isinstance(value, str):
                    if sanitize:
                        h = header.Header(value, header_name=name)
                    else:
                        parts.append(value)
                        h = None
                else:
                    # Assume it is a Header-like object.
                    h = value
                if h is not None:
                    parts.append(h.encode(linesep='\\n', maxlinelen=78))
                return ''.join(parts)


        compat32 = Compat32()
        """,
    "mail/charset.py": """
        import mail.base64mime
        import mail.quoprimime

        BASE64, QP = 1, 2


        class Charset:
            def __init__(self, header_encoding=BASE64):
                self.header_encoding = header_encoding

            def _get_encoder(self, header_bytes):
                if self.header_encoding == BASE64:
                    return mail.base64mime
                elif self.header_encoding == QP:
                    return mail.quoprimime
                else:
                    return None

            def header_encode(self, string):
                header_bytes = string.encode('ascii')
                encoder_module = self._get_encoder(header_bytes)
                if encoder_module is None:
                    return string
                return encoder_module.header_encode(header_bytes, 'utf-8')
        """,
    "mail/message.py": """
        from mail.policy import compat32, Policy


        class Message:
            def __init__(self, policy=compat32):
                self.policy = policy
                self._headers = []

            def __setitem__(self, name, val):
                max_count = self.policy.header_max_count(name)
                self._headers.append((name, val))

            def check(self, other):
                if isinstance(self.policy, Policy):
                    return self.policy.header_max_count(other)
                return None

            def strictness(self, fallback):
                if self.policy.strict:
                    return self.policy.strict
                return fallback and self.policy.strict
        """,
}

LOOP = {
    # a repository laid out as the standard library's asyncio package
    "asyncio/__init__.py": "",
    "asyncio/events.py": """
        class AbstractEventLoop:
            def call_later(self, delay, callback, *args, context=None):
                raise NotImplementedError


        def get_running_loop():
            loop = _get_running_loop()
            if loop is None:
                raise RuntimeError('no running event loop')
            return loop


        def _get_running_loop():
            return None


        try:
            from _asyncio import get_running_loop
        except ImportError:
            pass
        """,
    "asyncio/transports.py": """
        class BaseTransport:
            def close(self):
                raise NotImplementedError


        class WriteTransport(BaseTransport):
            def can_write_eof(self):
                raise NotImplementedError
        """,
    "asyncio/tasks.py": """
        from . import events


        async def wait_for(fut, timeout):
            loop = events.get_running_loop()
            handle = loop.call_later(timeout, fut.cancel)
            return handle
        """,
    "asyncio/streams.py": """
        class StreamWriter:
            def __init__(self, transport, protocol, reader, loop):
                self._transport = transport

            def can_write_eof(self):
                return self._transport.can_write_eof()


        class Renamed:
            def __init__(self, transport, proto, reader, loop):
                self._transport = transport

            def can_write_eof(self):
                return self._transport.can_write_eof()
        """,
}


def _resolve(files: dict[str, str]) -> ResolveResult:
    return resolve("r", {p: extract("python", textwrap.dedent(src).lstrip().encode(), p)
                         for p, src in files.items()})


@pytest.fixture(scope="module")
def mail() -> ResolveResult:
    return _resolve(MAIL)


@pytest.fixture(scope="module")
def loop() -> ResolveResult:
    return _resolve(LOOP)


def _calls(result: ResolveResult, src: str) -> list[EdgeRow]:
    return [e for e in result.edges if e.rel == "CALLS" and e.src == f"sym:r/{src}"]


def _edges(result: ResolveResult, src: str) -> set[tuple[str, str]]:
    return {(e.dst.removeprefix("sym:r/"), e.resolution) for e in _calls(result, src)}


def test_a_local_assigned_in_two_branches_takes_the_one_that_resolves(
        mail: ResolveResult) -> None:
    # ``h = value`` (a parameter) is the last assignment and says nothing; the other branch's
    # ``header.Header(...)`` does
    assert ("mail/header.py#Header.encode", "local") in \
        _edges(mail, "mail/policy.py#Compat32._fold")


def test_every_return_of_an_unannotated_function_and_modules_returned(
        mail: ResolveResult) -> None:
    # ``return mail.base64mime`` in one branch, ``mail.quoprimime`` in the next: the first
    # that resolves is what the call gives (jedi's first answer too)
    assert ("mail/base64mime.py#header_encode", "constructor") in \
        _edges(mail, "mail/charset.py#Charset.header_encode")


def test_a_parameter_holds_its_default(mail: ResolveResult) -> None:
    # ``def __init__(self, policy=compat32)``; ``compat32 = Compat32()``: the method is
    # inherited from Policy
    assert _edges(mail, "mail/message.py#Message.__setitem__") >= {
        ("mail/policy.py#Policy.header_max_count", "inheritance")}


def test_isinstance_on_an_attribute_of_self_narrows_it(mail: ResolveResult) -> None:
    assert ("mail/policy.py#Policy.header_max_count", "self") in \
        _edges(mail, "mail/message.py#Message.check")


def test_a_property_read_in_if_return_and_boolean_operands_calls_its_getter(
        mail: ResolveResult) -> None:
    reads = [e for e in _calls(mail, "mail/message.py#Message.strictness")]
    # ``if self.policy.strict:``, ``return self.policy.strict``, ``fallback and
    # self.policy.strict``: three reads of the getter Compat32 inherits, lines 19-21
    assert sorted((e.dst.rpartition("#")[2], e.line, e.resolution) for e in reads) == [
        ("Policy.strict", 19, "inheritance"), ("Policy.strict", 20, "inheritance"),
        ("Policy.strict", 21, "inheritance")]


def test_a_conditional_import_of_a_c_module_is_typed_by_its_stub(loop: ResolveResult) -> None:
    # ``get_running_loop`` is a def here and ``from _asyncio import get_running_loop`` at
    # import time; typeshed's ``_asyncio.pyi`` (installed with jedi) says it returns an
    # ``asyncio.events.AbstractEventLoop``: this repository's class
    assert ("asyncio/events.py#AbstractEventLoop.call_later", "constructor") in \
        _edges(loop, "asyncio/tasks.py#wait_for")


def test_a_modules_own_stub_types_its_unannotated_parameters(loop: ResolveResult) -> None:
    # typeshed's ``asyncio/streams.pyi``: ``StreamWriter.__init__(self, transport:
    # transports.WriteTransport, protocol, reader, loop)``
    assert _edges(loop, "asyncio/streams.py#StreamWriter.can_write_eof") == {
        ("asyncio/transports.py#WriteTransport.can_write_eof", "self")}
    # a class the stub does not have (or whose parameters differ) gets nothing from it
    assert _edges(loop, "asyncio/streams.py#Renamed.can_write_eof") == set()


def test_stub_return_types_of_externals() -> None:
    found = stubs()
    assert found.returns("_asyncio.get_running_loop") == "asyncio.events.AbstractEventLoop"
    assert found.returns("asyncio.events.AbstractEventLoop.call_later") == \
        "asyncio.events.TimerHandle"
    assert found.returns("logging.getLogger") == "logging.Logger"
    assert found.returns("no_such_module.f") is None
    assert parameters("def f(self, a: int = 3, *args: Unpack[Ts], b: dict[str, int] = {}, "
                      "**kw) -> X") == ("self", "a", "args", "b", "kw")


def test_a_parameter_shadows_an_outer_name_of_the_same_name() -> None:
    # ``callback`` is a module-level function and the parameter of ``register``: inside
    # ``register`` the name is the parameter (what a caller passes), never the function
    result = _resolve({"pkg/events.py": """
        handlers = {}


        def callback():
            return None


        def register(name, callback):
            handlers[name] = callback
            return callback.__name__


        def install():
            register("x", callback)
        """})
    assert _edges(result, "pkg/events.py#register") == set()
    assert _edges(result, "pkg/events.py#install") == {
        ("pkg/events.py#register", "same_module"), ("pkg/events.py#callback", "value")}


def test_an_external_instance_has_only_what_its_stub_class_has() -> None:
    # ``logging.getLogger()`` gives a ``logging.Logger`` (typeshed): ``debug`` is a method
    # of it, ``nosuch`` is not (unresolved, not a made-up External); ``partial(...)`` gives
    # a ``functools.partial`` whose result's members stay unknown (left to the name-only
    # guess, as before stubs were read)
    result = _resolve({"pkg/__init__.py": """
        class Serializer:
            def dumps(self, obj):
                return obj
        """, "tests/test_log.py": """
        import logging
        from functools import partial

        from pkg import Serializer

        log = logging.getLogger(__name__)


        def test_digests():
            log.debug("x")
            log.nosuch()
            factory = partial(Serializer, secret_key="dev key")
            assert factory().dumps([42])
        """})
    edges = _edges(result, "tests/test_log.py#test_digests")
    assert ("ext:python:logging.Logger.debug", "external") in edges
    assert ("pkg/__init__.py#Serializer.dumps", "name_only") in edges
    assert not any("nosuch" in dst for dst, _ in edges)
    assert ("tests/test_log.py", "test_digests", "log.nosuch", 11, "external") in \
        result.unresolved


def test_a_star_import_of_a_module_without_a_stub_finds_nothing_and_ends(tmp_path) -> None:
    # pyzmq ships stubs for some modules only and star-imports in a cycle: a star module
    # without a stub sent the lookup back to its package with the name grown by one part
    # (zmq.constants.constants...Poller, ~750K lookups), and found a variable of the
    # package named like the module as the answer
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.pyi").write_text(
        "from pkg.impl import *\nfrom pkg.loop import *\nimpl: int\nclass Real: ...\n")
    (package / "impl.py").write_text("class Thing: ...\n")
    (package / "loop.pyi").write_text("from pkg import *\nclass Looped: ...\n")
    found = Stubs((tmp_path,))
    assert found.lookup("pkg.Thing") is None
    assert [(m.name, q) for m, q in [found.lookup("pkg.Looped"), found.lookup("pkg.Real")]] \
        == [("pkg.loop", "Looped"), ("pkg", "Real")]
    assert found.lookup("pkg.loop.Real") is not None  # back through the cycle, once
