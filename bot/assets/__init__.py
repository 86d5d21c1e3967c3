"""Files the bot ships with (fonts); a package so that installs carry them along."""
