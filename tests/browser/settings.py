"""The browser tests' server: the product's settings, with a quick password hasher.

A sign-up or sign-in hashes the password with PBKDF2 at Django's full count, about half a
second of one core here and several seconds on a machine busy with the rest of the suite; the
browser tests drive the pages, not the hash."""

from toepen_site.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
