"""babeltrace2's decoded calls against `tracer -t`'s, field by field.

Usage: babeltrace2_check.py TRACER_TEXT BABELTRACE2_TEXT [--tamper]
       babeltrace2_check.py --bt2 PLUGIN_DIR TRACE TRACER_TEXT [--tamper]

TRACER_TEXT is `tracer -r TRACE -t`: each call an entry line (its arguments) and an exit
line (result, status, out values). BABELTRACE2_TEXT is `babeltrace2 TRACE -c
filter.tracer.decode` (sink.text.pretty): each call one event whose payload has the head
(start, end, pid, tid, depth), then the same fields by name. The calls are paired per
process, thread and function in start order; every field must be there on both sides
with the same value: numbers equal, names equal the enumeration's label (or its number
when the value has no name), out values an option's value (`{ 1 }`), NULL an option
without a value (`<none>`). With --bt2 the calls come from babeltrace2's Python bindings
(bt2) reading TRACE through the plugin, as a program would, instead of from the CLI's
text. --tamper changes one value
of the tracer's side first, to show that the check can fail.
"""
import re
import sys
from collections import defaultdict

HEAD = ("start", "end", "pid", "tid", "depth")


class Parser:
    """A value of sink.text.pretty or of `tracer -t` (they share their shapes)."""

    def __init__(self, text, sep):
        self.s, self.i, self.sep = text, 0, sep

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] == " ":
            self.i += 1

    def peek(self, t):
        self.ws()
        return self.s.startswith(t, self.i)

    def eat(self, t):
        if not self.peek(t):
            raise ValueError("expected %r at %d: %r" % (t, self.i, self.s[self.i:self.i + 40]))
        self.i += len(t)

    def string(self):
        self.eat('"')
        out = []
        while self.s[self.i] != '"':
            if self.s[self.i] == "\\":
                self.i += 1
            out.append(self.s[self.i])
            self.i += 1
        self.i += 1
        return ("str", "".join(out))

    def struct(self):
        self.eat("{")
        fields = {}
        self.ws()
        name = re.compile(r"[A-Za-z_][A-Za-z0-9_.]* *" + re.escape(self.sep))
        if not self.peek("}") and not name.match(self.s, self.i):
            # babeltrace2's option with a value: { VALUE }
            value = self.value()
            self.eat("}")
            return ("option", value)
        while not self.peek("}"):
            self.ws()
            m = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*").match(self.s, self.i)
            if not m:
                raise ValueError("no field name at %d: %r" % (self.i, self.s[self.i:self.i + 40]))
            self.i = m.end()
            self.eat(self.sep)
            fields[m.group(0)] = self.value()
            if self.peek(","):
                self.eat(",")
        self.eat("}")
        return fields

    def array(self):
        self.eat("[")
        items = []
        while not self.peek("]"):
            if self.peek("["):  # babeltrace2: [index] = value
                self.eat("[")
                self.atom()
                self.eat("]")
                self.eat("=")
            items.append(self.value())
            if self.peek(","):
                self.eat(",")
        self.eat("]")
        return ("array", items)

    def enumeration(self):
        # ( "LABEL" : container = N ), ( <unknown> : container = N ), ( "A" | "B" : ... )
        self.eat("(")
        labels = []
        while not self.peek(":"):
            if self.peek('"'):
                labels.append(self.string()[1])
            else:
                self.atom()
            if self.peek("|"):
                self.eat("|")
        self.eat(":")
        self.eat("container")
        self.eat("=")
        number = self.atom()
        self.eat(")")
        return ("enum", labels, number)

    def atom(self):
        self.ws()
        m = re.compile(r"<[a-z]+>|[^ ,}\])]+").match(self.s, self.i)
        if not m:
            raise ValueError("no value at %d: %r" % (self.i, self.s[self.i:self.i + 40]))
        self.i = m.end()
        return ("atom", m.group(0))

    def value(self):
        if self.peek("{"):
            fields = self.struct()
            return fields if isinstance(fields, tuple) else ("struct", fields)
        if self.peek("["):
            return self.array()
        if self.peek('"'):
            return self.string()
        if self.peek("("):
            return self.enumeration()
        return self.atom()


def number(text):
    try:
        return int(text, 0)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return None


def same(tracer_value, bt_value):
    """A value of `tracer -t` against babeltrace2's."""
    kind = tracer_value[0]
    if bt_value[0] == "option":
        return same(tracer_value, bt_value[1])
    if bt_value[0] == "enum":
        _, labels, container = bt_value
        if kind == "atom" and tracer_value[1] in labels:
            return True
        return same(tracer_value, container)
    if kind == "struct" and bt_value[0] == "array" and len(bt_value[1]) == 1:
        return same(tracer_value, bt_value[1][0])  # one struct's bytes: shown bare
    if kind == "struct" and bt_value[0] == "struct":
        a, b = tracer_value[1], bt_value[1]
        return set(a) == set(b) and all(same(a[k], b[k]) for k in a)
    if kind == "array" and bt_value[0] == "array":
        a, b = tracer_value[1], bt_value[1]
        if a and a[-1] == ("atom", "..."):  # tracer -t shows the first 32 elements
            a, b = a[:-1], b[:len(a) - 1]
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if kind == "atom" and tracer_value[1] == "NULL":
        return bt_value == ("atom", "<none>")
    if kind == "atom" and bt_value[0] == "atom":
        a, b = number(tracer_value[1]), number(bt_value[1])
        if a is None or b is None:
            return tracer_value[1] == bt_value[1]
        if isinstance(a, float) or isinstance(b, float):
            return a == b or abs(a - b) <= 1e-5 * max(abs(a), abs(b))
        return a == b
    return tracer_value == bt_value


TRACER_LINE = re.compile(
    r"^\S+ - \S+ - pid: (-?\d+), tid: (-?\d+) - ([A-Za-z0-9_]+):(\S+)_(entry|exit): (\{.*\})(?: # \S+)?$")
BT_LINE = re.compile(r"^\[[^\]]*\] \([^)]*\) \S+ ([A-Za-z0-9_]+):(\S+): (.*)$")


def tracer_calls(path):
    """{(pid, tid, provider, function): [fields of each call, in start order]}."""
    calls = defaultdict(list)
    open_calls = defaultdict(list)  # (pid, tid) -> stack of (key, fields)
    for line in open(path, encoding="utf-8", errors="replace"):
        m = TRACER_LINE.match(line.rstrip("\n"))
        if not m:
            continue
        pid, tid, provider, function, side, body = m.groups()
        fields = Parser(body, ":").struct()
        thread = (int(pid), int(tid))
        key = thread + (provider, function)
        if side == "entry":
            entry = (key, dict(fields))
            calls[key].append(entry[1])
            open_calls[thread].append(entry)
        else:
            if not open_calls[thread] or open_calls[thread][-1][0] != key:
                raise SystemExit("tracer -t: an exit line without its entry: %s" % line.strip())
            call = open_calls[thread].pop()[1]
            for name, value in fields.items():
                # Full mode: a field recorded at entry and again at exit is shown under
                # one name on both lines; the event names the second NAME_out.
                call[name + "_out" if name in call else name] = value
    return calls


def function_of(event_name):
    """F of the events F and F__full (full mode), as `tracer -t` names the call."""
    return event_name[:-6] if event_name.endswith("__full") else event_name


def is_length(name):
    """LTTng's length of the sequence after it (`_NAME_length`): `tracer -t` hides it."""
    return name.startswith("_") and name.endswith("_length")


def babeltrace2_calls(path):
    """The decoded call events of babeltrace2's text: same keys, sorted by start."""
    calls = defaultdict(list)
    for line in open(path, encoding="utf-8", errors="replace"):
        m = BT_LINE.match(line.rstrip("\n"))
        if not m:
            continue
        provider, name, rest = m.groups()
        if not provider.startswith("lttng_ust_") or provider == "lttng_ust_tracer":
            continue
        p = Parser(rest, "=")
        scopes = []
        while p.peek("{"):
            scopes.append(p.struct())
            if p.peek(","):
                p.eat(",")
        payload = {n: v for n, v in (scopes[-1] if scopes else {}).items() if not is_length(n)}
        if "record" in payload:
            raise SystemExit("babeltrace2 still shows an opaque record: %s" % line.strip()[:200])
        if "calls" in payload:
            raise SystemExit("babeltrace2 still shows a batch of calls: %s" % line.strip()[:200])
        if not all(h in payload for h in HEAD):
            continue  # not a call
        key = (number(payload["pid"][1]), number(payload["tid"][1]), provider, function_of(name))
        calls[key].append(payload)
    for key in calls:
        calls[key].sort(key=lambda fields: number(fields["start"][1]))
    return calls


def bt2_value(field):
    """A field read through babeltrace2's Python bindings, as the text parser gives it."""
    import bt2  # Debian's python3-bt2: /usr/bin/python3 only

    if isinstance(field, bt2._OptionFieldConst):
        inner = field.field
        return ("atom", "<none>") if inner is None else ("option", bt2_value(inner))
    if isinstance(field, (bt2._UnsignedEnumerationFieldConst, bt2._SignedEnumerationFieldConst)):
        return ("enum", list(field.labels), ("atom", str(int(field))))
    if isinstance(field, bt2._IntegerFieldConst):
        return ("atom", str(int(field)))
    if isinstance(field, bt2._RealFieldConst):
        return ("atom", repr(float(field)))
    if isinstance(field, bt2._StringFieldConst):
        return ("str", str(field))
    if isinstance(field, bt2._StructureFieldConst):
        return ("struct", {name: bt2_value(member) for name, member in field.items()})
    if isinstance(field, bt2._ArrayFieldConst):
        return ("array", [bt2_value(element) for element in field])
    return ("atom", str(field))


def bt2_calls(plugin_dir, trace):
    """The same calls read by the Python bindings: the trace's source, then the plugin's
    filter.tracer.decode, as a program would use them."""
    import bt2

    plugins = bt2.find_plugins_in_path(plugin_dir)
    decode = [p for p in plugins if p.name == "tracer"][0].filter_component_classes["decode"]
    messages = bt2.TraceCollectionMessageIterator(
        bt2.AutoSourceComponentSpec(trace), filter_component_specs=[bt2.ComponentSpec(decode)])
    calls = defaultdict(list)
    for message in messages:
        if type(message) is not bt2._EventMessageConst:
            continue
        provider, _, name = message.event.name.partition(":")
        payload = message.event.payload_field
        if not provider.startswith("lttng_ust_") or provider == "lttng_ust_tracer" or \
                payload is None or "start" not in payload:
            continue
        fields = {n: bt2_value(f) for n, f in payload.items() if not is_length(n)}
        key = (int(payload["pid"]), int(payload["tid"]), provider, function_of(name))
        calls[key].append(fields)
    for key in calls:
        calls[key].sort(key=lambda fields: number(fields["start"][1]))
    return calls


def main():
    args = sys.argv[1:]
    tamper = "--tamper" in args
    args = [a for a in args if a != "--tamper"]
    if args[0] == "--bt2":  # --bt2 PLUGIN_DIR TRACE TRACER_TEXT
        ours, theirs = tracer_calls(args[3]), bt2_calls(args[1], args[2])
    else:
        ours, theirs = tracer_calls(args[0]), babeltrace2_calls(args[1])
    if tamper:  # one value changed, the first number (else the first name): must be seen
        atoms = [(call, name, value[1]) for key in sorted(ours) for call in ours[key]
                 for name, value in call.items() if value[0] == "atom"]
        numbers = [a for a in atoms if number(a[2]) is not None]
        if numbers:
            call, name, text = numbers[0]
            call[name] = ("atom", str(number(text) + 1))
        elif atoms:
            call, name, text = atoms[0]
            call[name] = ("atom", text + "_CHANGED")
    errors, compared, call_count = [], 0, 0
    for key in sorted(set(ours) | set(theirs)):
        a, b = ours.get(key, []), theirs.get(key, [])
        if len(a) != len(b):
            errors.append("%s: tracer -t has %d calls, babeltrace2 %d" % (key, len(a), len(b)))
            continue
        for n, (x, y) in enumerate(zip(a, b)):
            call_count += 1
            named = {k: v for k, v in y.items() if k not in HEAD}
            if set(x) != set(named):
                errors.append("%s call %d: fields differ: tracer -t %s, babeltrace2 %s"
                              % (key, n, sorted(x), sorted(named)))
                continue
            for name, value in x.items():
                compared += 1
                if not same(value, named[name]):
                    errors.append("%s call %d: %s: tracer -t %r, babeltrace2 %r"
                                  % (key, n, name, value, named[name]))
    if errors:
        print("\n".join(errors[:20]))
        if len(errors) > 20:
            print("... and %d more" % (len(errors) - 20))
        sys.exit(1)
    if call_count == 0 or compared == 0:
        print("no call with fields to compare")
        sys.exit(1)
    print("%d calls of %d functions, %d fields equal" % (call_count, len(ours), compared))


main()
