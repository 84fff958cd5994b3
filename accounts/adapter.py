"""allauth's adapter, with failed sign-ins counted per client and account together."""

from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from allauth.core.internal.ratelimit import get_ip
from django.http import HttpRequest


class AccountAdapter(DefaultAccountAdapter):
    def _get_login_attempts_cache_key(self, request: HttpRequest, **credentials: Any) -> str:
        # allauth's "key" limit on failed sign-ins (ACCOUNT_RATE_LIMITS["login_failed"]) counts
        # per account: anyone who fails five times on purpose locks a member out of signing in
        # from everywhere. Counted per account *from one client*, a stranger only locks out
        # himself; the per-address limit still slows him on every account he tries. This key
        # is also the one allauth clears after a password reset, so the two stay in step.
        account = super()._get_login_attempts_cache_key(request, **credentials)
        return f"{account}@{get_ip(request)}"
