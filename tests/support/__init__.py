"""What the tests share, in one place: the in-process app and its clients (`app`), databases of a
test's own (`db`), `engram` processes (`procs`), a redis-server of a test's own (`redis_server`),
the one strict problem+json check (`problems`), the local model (`model`), and stub servers."""
