"""Adapters that put normcache under the Python clients people already use, each an
optional extra of the package (the core package needs nothing):

- normcache.adapters.gql (pip install normcache[gql]): a gql Transport and AsyncTransport
  that run every query through the cache's fetch policies and write mutations' results;
- normcache.adapters.httpx (pip install normcache[httpx]): httpx transports, sync and
  async, that keep JSON answers to GET as documents with the server's lifetime and
  revalidate them with ETag and If-None-Match.

Importing an adapter without its client installed raises ImportError naming the extra.
"""
