"""The ceiling of the web-tier figures: a bare Django + DRF app writing and reading the service's
own rows (publishes, targets, outbox jobs) with no authentication, permissions, throttles or
middleware. It is part of the benchmark, never of the service."""
