# Veletas Bot: a slim image that runs `python -m bot` as an unprivileged user.
#   docker build -t veletas-bot .
#   docker run -d --name veletas --env-file .env -v veletas-data:/data veletas-bot
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY cogs ./cogs
RUN python -m venv /opt/venv \
    && /opt/venv/bin/pip install --no-cache-dir --upgrade pip \
    && /opt/venv/bin/pip install --no-cache-dir .

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:$PATH \
    DATABASE_PATH=/data/veletas.sqlite3
# Fonts for names and words in every script: Noto Sans CJK (Japanese and the rest of CJK), Noto Color
# Emoji, Noto Sans for Thai, the Indic scripts and others, and libfribidi for Pillow's Raqm layout, which
# shapes them and joins emoji sequences (bot/render/text.py).
RUN apt-get update \
    && apt-get install -y --no-install-recommends fonts-noto-cjk fonts-noto-color-emoji fonts-noto-core libfribidi0 \
    && rm -rf /var/lib/apt/lists/*
RUN useradd --system --uid 10001 --home-dir /nonexistent --shell /usr/sbin/nologin veletas \
    && mkdir /data && chown veletas /data
COPY --from=build /opt/venv /opt/venv
USER veletas
WORKDIR /data
VOLUME ["/data"]
# The bot touches /data/heartbeat every 30 s while connected to Discord; `health` fails when it goes stale.
HEALTHCHECK --interval=60s --timeout=10s --start-period=60s --retries=3 CMD ["python", "-m", "bot", "health"]
CMD ["python", "-m", "bot"]
