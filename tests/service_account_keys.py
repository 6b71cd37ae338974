"""Service account keys as Google's Cloud console downloads them, made for a test.

Imported as ``service_account_keys`` (tests/ is on the path of every test). A key holds a
fresh RSA private key; its public half is what a fake token endpoint checks the JWT with.
"""

from __future__ import annotations

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa


def key_pair() -> tuple[str, str]:
    """A new RSA key: its private half (PKCS#8 PEM) and its public half (PEM)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return private, public.decode()


def key_info(
    token_uri: str,
    client_email: str = "bot@p.iam.gserviceaccount.com",
    private_key: str | None = None,
) -> dict:
    """A service account's JSON key (``service_account_key=``), renewed at ``token_uri``."""
    return {
        "type": "service_account",
        "project_id": "p",
        "private_key_id": "k1",
        "private_key": private_key or key_pair()[0],
        "client_email": client_email,
        "client_id": "1",
        "token_uri": token_uri,
    }
