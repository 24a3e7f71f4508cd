#!/usr/bin/env python3
# -*- coding: utf-8 -*-
import dspy

def main():
	print('hi')   


main()