"""Running an app untraced or under the tracer, several times, for the overhead scripts
beside this file (launch_cost.py, torch_overhead.py)."""
import os
import re
import shutil
import signal
import statistics
import subprocess
import tempfile
import time


class Result:
    def __init__(self, status, stdout, stderr, seconds):
        self.status = status  # the exit status, or a word when there is none
        self.stdout = stdout
        self.stderr = stderr
        self.seconds = seconds

    def tail(self, lines=6):
        text = (self.stdout + self.stderr).strip().splitlines()
        return "\n".join("    " + line for line in text[-lines:])


def _text(data):
    if data is None:
        return ""
    return data.decode(errors="replace") if isinstance(data, bytes) else data


def run(command, timeout, env=None):
    """Runs command in a process group of its own (so that a timeout also ends what it
    started, such as the app under the tracer) and returns its Result."""
    start = time.monotonic()
    try:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   env=env, start_new_session=True)
    except OSError as error:
        return Result("cannot start", "", f"{command[0]}: {error}", 0.0)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
        status = process.returncode
    except subprocess.TimeoutExpired:
        _kill(process)
        stdout, stderr = process.communicate()
        status = f"timeout after {timeout} s"
    except BaseException:  # Stopped (SIGTERM) or interrupted: end the run too
        _kill(process)
        process.wait()
        raise
    return Result(status, _text(stdout), _text(stderr), time.monotonic() - start)


def _kill(process):
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


class Stopped(Exception):
    """SIGTERM (timeout ending the script): stop running, print what was measured."""


def stop_on_sigterm():
    def handler(signum, frame):
        raise Stopped()
    signal.signal(signal.SIGTERM, handler)


def value(text, key):
    """The number in 'key=NUMBER' in text, or None."""
    match = re.search(r"\b" + re.escape(key) + r"=([0-9.eE+-]+)", text)
    try:
        return float(match.group(1)) if match else None
    except ValueError:
        return None


class TraceFolders:
    """Trace folders under one temporary folder, each removed after its run (a long
    trace takes disk space that nothing here reads again)."""

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="tracer-bench-")
        self.count = 0

    def next(self):
        self.count += 1
        return os.path.join(self.root, f"trace-{self.count}")

    def remove(self, path):
        shutil.rmtree(path, ignore_errors=True)

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)


def keep_and_clean(folders, trace_dir, tally, keep_dir, kept_name):
    """After one run: its tally kept as keep_dir/kept_name when none is there yet, then
    its trace folder and tally removed (disk is small on the GPU machine)."""
    if tally and keep_dir and os.path.exists(tally):
        kept = os.path.join(keep_dir, kept_name)
        if not os.path.exists(kept):
            shutil.copyfile(tally, kept)
    if trace_dir:
        folders.remove(trace_dir)
        if tally and os.path.exists(tally):
            os.remove(tally)


def traced(tracer, backends, tally_path, trace_dir, command, options=()):
    """command under the tracer (with options, such as ["-m", "minimal"]), its text tally
    written to tally_path."""
    return ([tracer, "-b", backends, *options, "-o", tally_path, "--trace-output", trace_dir,
             "--"] + command)


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(number, digits=3):
    return "-" if number is None else f"{number:.{digits}f}"
