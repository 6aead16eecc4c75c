-- A busted helper that makes standard output unbuffered, so that a run
-- that crashes has written every result before the crash
-- (tools/test-aarch64.sh).
io.stdout:setvbuf("no")
