"""Packaging for damcha, read from settings.ini (the nbdev 2 way); no pkg_resources."""
from configparser import ConfigParser
import shlex
from setuptools import find_packages, setup

config = ConfigParser(delimiters=['='])
config.read('settings.ini', encoding='utf-8')
cfg = config['DEFAULT']

for key in 'version description keywords author author_email license min_python lib_name user'.split():
    if key not in cfg: raise KeyError(f'settings.ini is missing "{key}"')

licenses = {'apache2': ('Apache Software License 2.0', 'OSI Approved :: Apache Software License'),
            'mit': ('MIT License', 'OSI Approved :: MIT License')}
statuses = ['1 - Planning', '2 - Pre-Alpha', '3 - Alpha', '4 - Beta', '5 - Production/Stable', '6 - Mature', '7 - Inactive']
py_versions = '3.10 3.11 3.12 3.13'.split()

requirements = shlex.split(cfg.get('requirements', ''))
dev_requirements = shlex.split(cfg.get('dev_requirements', ''))
# optional integrations: `pip install 'damcha[timm]'`, `'damcha[hf]'`, `'damcha[eval]'` (settings.ini's extras_* keys)
extras = {k[len('extras_'):]: shlex.split(v) for k, v in cfg.items() if k.startswith('extras_')}
lic = licenses.get(cfg['license'].lower(), (cfg['license'], None))
min_python = cfg['min_python']

setup(
    name=cfg['lib_name'],
    version=cfg['version'],
    description=cfg['description'],
    long_description=open('README.md', encoding='utf-8').read(),
    long_description_content_type='text/markdown',
    keywords=cfg['keywords'],
    author=cfg['author'],
    author_email=cfg['author_email'],
    license=lic[0],
    url=cfg['git_url'],
    classifiers=['Development Status :: ' + statuses[int(cfg['status'])],
                 'Intended Audience :: ' + cfg['audience'].title(),
                 'Natural Language :: ' + cfg['language'].title()]
                + ([f'License :: {lic[1]}'] if lic[1] else [])
                + [f'Programming Language :: Python :: {v}' for v in py_versions[py_versions.index(min_python):]],
    packages=find_packages(include=[cfg['lib_name'], cfg['lib_name'] + '.*']),
    include_package_data=True,
    install_requires=requirements,
    extras_require={'dev': dev_requirements, **extras},
    python_requires='>=' + min_python,
    zip_safe=False,
    entry_points={
        'console_scripts': cfg.get('console_scripts', '').split(),
        'nbdev': [f"{cfg['lib_path']}={cfg['lib_path']}._modidx:d"],
    },
)
