"""A typed client for the Social Publishing API (`socialpub.Client`) and the `socialpub` command.

`socialpub._generated` is generated from the API's OpenAPI document by `make client`; its
models are the types `Client` returns.
"""

from socialpub.client import ApiError, Client, ClientError, ConnectionFailed

__all__ = ["ApiError", "Client", "ClientError", "ConnectionFailed"]
